import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENTS, type Method, type MethodInfo, type StepContext } from './catalog.js';
import { classifyBlock } from './classify-block.js';
import { resolveClientId } from './client-ids.js';
import { bridgeBlock, headerBlock, oauthBlock } from './server-blocks.js';

const URL = 'https://cairn.example.com/mcp';

test('aliases kiro-cli and kiro-ide run the kiro install', () => {
  equal(resolveClientId('kiro-cli'), 'kiro');
  equal(resolveClientId('kiro-ide'), 'kiro');
  equal(resolveClientId('Cursor'), 'cursor');
  equal(resolveClientId('emacs'), undefined);
});

test('Kiro: OAuth by hand with its local callback; the installer always writes a key, and says why', () => {
  const kiro = CLIENTS.kiro;
  equal(kiro.methods.oauth.supported, true);
  equal(kiro.oauthCallback, 'loopback');
  equal(kiro.installerOAuth.supported, false);
  ok(
    !kiro.installerOAuth.supported &&
      /API key/.test(kiro.installerOAuth.reason) &&
      !/callback/.test(kiro.installerOAuth.reason),
  );
});

const ctx: StepContext = { mcpUrl: URL, serverName: 'cairn', configPath: '/x' };
const stepsOf = (info: MethodInfo) => (info.supported ? info.steps(ctx) : [info.reason]);

/** Every string a user can read from the catalog: names, kinds, steps, reasons, removal, after-install texts. */
export function userFacingTexts(): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  for (const c of Object.values(CLIENTS)) {
    out.push({ where: `${c.id} displayName`, text: c.displayName }, { where: `${c.id} kind`, text: c.kind });
    out.push(
      { where: `${c.id} afterInstall`, text: c.afterInstall },
      { where: `${c.id} staysAfterUninstall`, text: c.staysAfterUninstall() },
    );
    if (!c.installerOAuth.supported) out.push({ where: `${c.id} installerOAuth`, text: c.installerOAuth.reason });
    for (const [method, info] of Object.entries(c.methods)) {
      for (const text of stepsOf(info)) out.push({ where: `${c.id} ${method} steps`, text });
      out.push({ where: `${c.id} ${method} removal`, text: c.removal[method as Method] });
    }
  }
  return out;
}

/** Phrases from the spec's own vocabulary that must never reach a user. */
export const INTERNAL_PHRASES = [
  /spec part/i,
  /\bspec\b/i,
  /rule \d/i,
  /second desktop coding client/i,
  /IDE and CLI pair/i,
  /pair of one vendor/i,
  /chat desktop client/i,
  /code-editor desktop client/i,
];

test('no user-facing catalog text quotes the spec or its internal names', () => {
  const texts = userFacingTexts();
  ok(texts.length > 50);
  for (const { where, text } of texts)
    for (const phrase of INTERNAL_PHRASES)
      ok(!phrase.test(text), `${where}: ${JSON.stringify(text)} matches ${phrase}`);
});

test('each file-based client\'s steps name the fields its entry really has (Gemini CLI "type", Windsurf "serverUrl")', () => {
  for (const c of Object.values(CLIENTS)) {
    if (c.format === 'toml' || c.id === 'claude-desktop' || c.id === 'claude-code') continue;
    for (const [method, key] of [
      ['oauth', undefined],
      ['manual', '<API_KEY>'],
    ] as const) {
      const info = c.methods[method];
      if (!info.supported) continue;
      const text = info.steps(ctx).join(' ');
      const entry = c.block('<mcp_url>', key);
      for (const field of Object.keys(entry).filter((k) => k !== 'headers'))
        ok(text.includes(`"${field}": ${JSON.stringify(entry[field])}`), `${c.id} ${method}: ${text} lacks "${field}"`);
      for (const field of ['url', 'serverUrl', 'type'])
        if (!(field in entry))
          ok(!text.includes(`"${field}"`), `${c.id} ${method}: ${text} names "${field}", which its entry lacks`);
      ok(text.includes(c.containerKey), `${c.id} ${method}: container ${c.containerKey}`);
    }
  }
  ok(stepsOf(CLIENTS.windsurf.methods.oauth)[0]!.includes('"serverUrl": "<mcp_url>"'));
  ok(stepsOf(CLIENTS['gemini-cli'].methods.manual)[0]!.includes('"type": "http", "url": "<mcp_url>"'));
});

test('every supported method has steps ending with the verification prompt, and every method a removal', () => {
  for (const client of Object.values(CLIENTS)) {
    for (const [method, info] of Object.entries(client.methods)) {
      ok(client.removal[method as 'manual'].length > 0, `${client.id} ${method} removal`);
      if (!info.supported) continue;
      const steps = info.steps({ mcpUrl: URL, serverName: 'cairn', configPath: '/x' });
      ok(steps.at(-1)!.includes('List my Cairn datapacks.'), `${client.id} ${method}`);
    }
  }
  ok(CLIENTS['claude-desktop'].staysAfterUninstall().includes('Settings > Extensions'));
  // Each system gets its own hint: no launchctl line on Linux or Windows, no chmod on Windows.
  ok(CLIENTS.codex.staysAfterUninstall('darwin').includes('launchctl unsetenv'));
  ok(!CLIENTS.codex.staysAfterUninstall('linux').includes('launchctl'));
  ok(!CLIENTS.codex.staysAfterUninstall('win32').includes('launchctl'));
  ok(CLIENTS.codex.staysAfterUninstall('win32').includes('Environment Variables'));
  const kiroOn = (platform: NodeJS.Platform) =>
    (CLIENTS.kiro.methods.manual as { steps: (c: StepContext) => string[] }).steps({ ...ctx, platform }).join(' ');
  ok(!kiroOn('win32').includes('chmod') && kiroOn('linux').includes('chmod 600'));
});

test('classifyBlock tells current, OAuth and legacy entries apart and recovers the key', () => {
  deepStrictEqual(classifyBlock(headerBlock(URL, 'cairn_tkn_k')), {
    method: 'api-key',
    bridge: false,
    legacy: false,
    url: URL,
    apiKey: 'cairn_tkn_k',
  });
  deepStrictEqual(classifyBlock(oauthBlock(URL)), { method: 'oauth', bridge: false, legacy: false, url: URL });
  deepStrictEqual(classifyBlock({ url: URL, headers: { API_KEY: 'cairn_tkn_old' } }), {
    method: 'api-key',
    bridge: false,
    legacy: true,
    url: URL,
    apiKey: 'cairn_tkn_old',
  });
  deepStrictEqual(classifyBlock(bridgeBlock(URL, 'cairn_tkn_k')), {
    method: 'api-key',
    bridge: true,
    legacy: false,
    url: URL,
    apiKey: 'cairn_tkn_k',
  });
  deepStrictEqual(
    classifyBlock({
      command: 'npx',
      args: ['-y', 'mcp-remote', URL, '--allow-http'],
      env: { API_KEY: 'cairn_tkn_old' },
    }),
    {
      method: 'api-key',
      bridge: true,
      legacy: true,
      url: URL,
      apiKey: 'cairn_tkn_old',
    },
  );
  deepStrictEqual(classifyBlock({ url: URL, bearer_token_env_var: 'CAIRN_MCP_TOKEN' }), {
    method: 'api-key',
    bridge: false,
    legacy: false,
    url: URL,
  });
  equal(classifyBlock({ command: 'node', args: ['server.js'] }), undefined);
  equal(classifyBlock('nope'), undefined);
});

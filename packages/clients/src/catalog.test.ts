import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENTS } from './catalog.js';
import { classifyEntry } from './classify-entry.js';
import { resolveClientId } from './client-ids.js';
import { bridgeEntry, headerEntry, oauthEntry } from './entries.js';

const URL = 'https://cairn.example.com/mcp';

test('aliases kiro-cli and kiro-ide run the kiro install', () => {
  equal(resolveClientId('kiro-cli'), 'kiro');
  equal(resolveClientId('kiro-ide'), 'kiro');
  equal(resolveClientId('Cursor'), 'cursor');
  equal(resolveClientId('emacs'), undefined);
});

test('OAuth is not offered for kiro, with the reason', () => {
  const kiro = CLIENTS.kiro;
  equal(kiro.methods.oauth.supported, false);
  equal(kiro.installerOAuth.supported, false);
  ok(!kiro.methods.oauth.supported && /callback/.test(kiro.methods.oauth.reason));
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
  ok(CLIENTS['claude-desktop'].staysAfterUninstall.includes('Settings > Extensions'));
});

test('classifyEntry tells current, OAuth and legacy entries apart and recovers the key', () => {
  deepStrictEqual(classifyEntry(headerEntry(URL, 'cairn_tkn_k')), { method: 'api-key', bridge: false, legacy: false, url: URL, apiKey: 'cairn_tkn_k' });
  deepStrictEqual(classifyEntry(oauthEntry(URL)), { method: 'oauth', bridge: false, legacy: false, url: URL });
  deepStrictEqual(classifyEntry({ url: URL, headers: { API_KEY: 'cairn_tkn_old' } }), { method: 'api-key', bridge: false, legacy: true, url: URL, apiKey: 'cairn_tkn_old' });
  deepStrictEqual(classifyEntry(bridgeEntry(URL, 'cairn_tkn_k')), { method: 'api-key', bridge: true, legacy: false, url: URL, apiKey: 'cairn_tkn_k' });
  deepStrictEqual(classifyEntry({ command: 'npx', args: ['-y', 'mcp-remote', URL, '--allow-http'], env: { API_KEY: 'cairn_tkn_old' } }), {
    method: 'api-key', bridge: true, legacy: true, url: URL, apiKey: 'cairn_tkn_old',
  });
  deepStrictEqual(classifyEntry({ url: URL, bearer_token_env_var: 'CAIRN_MCP_TOKEN' }), { method: 'api-key', bridge: false, legacy: false, url: URL });
  equal(classifyEntry({ command: 'node', args: ['server.js'] }), undefined);
  equal(classifyEntry('nope'), undefined);
});

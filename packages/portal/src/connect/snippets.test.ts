import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import { test } from 'node:test';
import { CLIENT_IDS, CLIENTS, VERIFICATION_PROMPT } from '@cairn/clients';
import * as shim from '../shims/node-path.js';
import {
  automaticOffer,
  blockDocument,
  configFileFor,
  installerCommands,
  installerRunner,
  isCommand,
  isPrivateAddress,
  KEY_PLACEHOLDER,
  manualSnippets,
  oauthNetworkNote,
  oauthObstacle,
  oauthSnippets,
  removalFor,
  stepsFor,
} from './snippets.js';

const URL_ = 'https://cairn.example.com/mcp';
const KEY = 'cairn_tkn_abcdefghijklmnop';

test('the Manual entry is the catalog entry the installer writes, under the client container key', () => {
  for (const id of CLIENT_IDS) {
    if (id === 'claude-code' || id === 'codex') continue;
    const [snippet] = manualSnippets(id, URL_, 'linux', KEY);
    const doc = JSON.parse(snippet!.text) as Record<string, Record<string, unknown>>;
    assert.deepEqual(doc[CLIENTS[id].containerKey]!.cairn, CLIENTS[id].block(URL_, KEY), id);
  }
});

test('without a generated key the snippet holds the placeholder, never a key', () => {
  for (const id of CLIENT_IDS) {
    const texts = manualSnippets(id, URL_, 'darwin').map((s) => s.text);
    assert.ok(
      texts.some((t) => t.includes(KEY_PLACEHOLDER)),
      id,
    );
    assert.ok(
      texts.every((t) => !t.includes('cairn_tkn_')),
      id,
    );
  }
});

test('Claude Code and Codex get their command and TOML table', () => {
  assert.equal(
    manualSnippets('claude-code', URL_, 'linux', KEY)[0]!.text,
    `claude mcp add --scope user --transport http cairn ${URL_} --header "Authorization: Bearer ${KEY}" --header "User-Agent: cairn-mcp-installer/1.0"`,
  );
  const [table, chmod] = manualSnippets('codex', URL_, 'darwin', KEY);
  assert.equal(table!.label, 'Table in ~/.codex/config.toml');
  assert.equal(
    table!.text,
    `[mcp_servers.cairn]\nurl = "${URL_}"\nhttp_headers = { "Authorization" = "Bearer ${KEY}", "User-Agent" = "cairn-mcp-installer/1.0" }`,
  );
  assert.equal(chmod!.text, 'chmod 600 ~/.codex/config.toml');
  assert.deepEqual(
    manualSnippets('codex', URL_, 'win32', KEY).map((s) => s.label),
    ['Table in %USERPROFILE%\\.codex\\config.toml'],
    'no chmod on Windows',
  );
});

test("Codex's tabs describe its CLI and config.toml per system, never a GUI menu or launchctl", () => {
  assert.deepEqual(oauthSnippets('codex', URL_, 'linux'), [
    { label: 'Command', text: `codex mcp add cairn --url ${URL_}` },
  ]);
  for (const os of ['darwin', 'win32', 'linux'] as const) {
    const file = configFileFor('codex', os);
    for (const method of ['oauth', 'manual'] as const) {
      const s = stepsFor('codex', method, URL_, os);
      assert.ok(s.supported);
      const text = s.steps.join(' ');
      assert.ok(text.includes(file), `${os} ${method}: names ${file}`);
      assert.doesNotMatch(text, /launchctl|Settings > MCP servers|CAIRN_MCP_TOKEN/, `${os} ${method}`);
    }
    const manual = stepsFor('codex', 'manual', URL_, os);
    assert.equal(manual.supported && manual.steps.some((st) => st.startsWith('chmod 600')), os !== 'win32', os);
  }
});

test("Gemini CLI's tabs and the installer's closing line name its folder-trust step", () => {
  for (const method of ['automated', 'oauth', 'manual'] as const) {
    const s = stepsFor('gemini-cli', method, URL_, 'linux');
    assert.ok(
      s.supported && s.steps.some((st) => st.includes('trusted folders') && st.includes('/permissions trust')),
      method,
    );
  }
  assert.match(CLIENTS['gemini-cli'].afterInstall, /trusted folders.*GEMINI_CLI_TRUST_WORKSPACE=true/);
});

test("OAuth: url-only entries, Kiro's too; each step quotes the entry its snippet shows", () => {
  assert.deepEqual(JSON.parse(oauthSnippets('cursor', URL_, 'linux')[0]!.text), {
    mcpServers: { cairn: { url: URL_ } },
  });
  assert.deepEqual(JSON.parse(oauthSnippets('kiro', URL_, 'linux')[0]!.text), { mcpServers: { cairn: { url: URL_ } } });
  for (const id of CLIENT_IDS) {
    for (const [method, snippets] of [
      ['oauth', oauthSnippets(id, URL_, 'linux')],
      ['manual', manualSnippets(id, URL_, 'linux', KEY)],
    ] as const) {
      const s = stepsFor(id, method, URL_, 'linux');
      if (!s.supported || !snippets[0]?.label.startsWith('Entry in')) continue;
      const entry = Object.values(
        JSON.parse(snippets[0].text) as Record<string, Record<string, Record<string, unknown>>>,
      )[0]!.cairn!;
      const text = s.steps.join(' ');
      for (const [field, value] of Object.entries(entry))
        if (field !== 'headers' && field !== 'env' && field !== 'args' && field !== 'command')
          assert.ok(text.includes(`"${field}": ${JSON.stringify(value)}`), `${id} ${method}: ${text} lacks "${field}"`);
      for (const field of ['url', 'serverUrl', 'type'])
        if (!(field in entry)) assert.ok(!text.includes(`"${field}"`), `${id} ${method}: ${text} names "${field}"`);
    }
  }
});

test('private and loopback addresses are told apart from public ones', () => {
  for (const u of [
    'http://127.0.0.1:3000',
    'http://localhost:8080',
    'http://[::1]:3000',
    'http://10.1.2.3',
    'http://172.20.0.1',
    'http://192.168.1.9',
    'http://100.101.102.103',
    'http://cairn.local',
    'http://cairn',
    'http://169.254.1.1',
    'http://[fd00::1]',
  ]) {
    assert.equal(isPrivateAddress(u), true, u);
  }
  for (const u of ['https://cairn.example.com', 'https://8.8.8.8', 'http://172.32.0.1', 'https://[2001:db8::1]'])
    assert.equal(isPrivateAddress(u), false, u);
});

test('OAuth guidance follows what the server allows: Claude Desktop on a private URL and loopback callbacks when refused go to the Manual tab', () => {
  assert.match(
    oauthObstacle('claude-desktop', { baseUrl: 'http://127.0.0.1:3000' }) ?? '',
    /cannot reach 127\.0\.0\.1:3000.*Manual \(API key\) tab.*bridge/,
  );
  assert.match(oauthObstacle('claude-desktop', { baseUrl: 'http://192.168.1.9' }) ?? '', /cannot reach/);
  assert.equal(oauthObstacle('claude-desktop', { baseUrl: 'https://cairn.example.com' }), undefined);
  assert.equal(oauthObstacle('kiro', { baseUrl: 'http://127.0.0.1:3000', oauthLoopbackAllowed: true }), undefined);
  assert.equal(oauthObstacle('kiro', { baseUrl: 'http://127.0.0.1:3000' }), undefined);
  assert.match(
    oauthObstacle('kiro', { baseUrl: 'https://cairn.example.com', oauthLoopbackAllowed: false }) ?? '',
    /local callback.*turned those off.*API key/,
  );
  assert.match(
    oauthObstacle('claude-code', { baseUrl: 'https://cairn.example.com', oauthLoopbackAllowed: false }) ?? '',
    /local callback/,
  );
  assert.equal(
    oauthObstacle('cursor', { baseUrl: 'https://cairn.example.com', oauthLoopbackAllowed: false }),
    undefined,
  );
});

test('Codex’s OAuth tab says the server must reach chatgpt.com or have the document pinned; clients that register themselves say nothing', () => {
  const note = oauthNetworkNote('codex') ?? '';
  assert.match(note, /https:\/\/chatgpt\.com\/oauth\/codex\/client\.json/);
  assert.match(
    note,
    /must be able to reach chatgpt\.com, or its operator must pin that document with CAIRN_OAUTH_PINNED_CLIENTS/,
  );
  assert.match(note, /API key\) tab/);
  for (const id of ['claude-code', 'cursor', 'vscode', 'kiro'] as const)
    assert.equal(oauthNetworkNote(id), undefined, id);
  const pinned = oauthNetworkNote('codex', ['https://chatgpt.com/oauth/codex/client.json']) ?? '';
  assert.match(
    pinned,
    /operator has pinned a copy, so the sign-in works even where the server cannot reach chatgpt\.com/,
  );
  assert.equal(oauthNetworkNote('codex', ['https://elsewhere.example/client.json']), note);
});

/** Strings a user reads in the Connect dialog, pulled from its sources (comments dropped) and from what the snippets module builds. */
function connectTexts(): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  for (const file of ['connect-dialog.tsx', 'snippets.ts', '../ui/unsaved-key.tsx']) {
    const source = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    out.push({ where: file, text: source });
  }
  for (const id of CLIENT_IDS) {
    out.push({ where: `${id} kind`, text: CLIENTS[id].kind });
    for (const method of ['automated', 'oauth', 'manual'] as const) {
      const s = stepsFor(id, method, URL_, 'linux');
      out.push({ where: `${id} ${method}`, text: s.supported ? s.steps.join('\n') : s.reason });
      out.push({ where: `${id} ${method} removal`, text: removalFor(id, method, URL_) });
    }
    for (const sn of [...manualSnippets(id, URL_, 'win32'), ...oauthSnippets(id, URL_, 'darwin')])
      out.push({ where: `${id} snippet`, text: `${sn.label}\n${sn.text}` });
    for (const server of [{ baseUrl: 'http://127.0.0.1:3000', oauthLoopbackAllowed: false }])
      out.push({ where: `${id} obstacle`, text: oauthObstacle(id, server) ?? '' });
    out.push({ where: `${id} network note`, text: oauthNetworkNote(id) ?? '' });
  }
  return out;
}

test('no text in the Connect dialog quotes the spec or its internal names', () => {
  const phrases = [
    /spec part/i,
    /\bspec\b/i,
    /rule \d/i,
    /second desktop coding client/i,
    /IDE and CLI pair/i,
    /pair of one vendor/i,
    /code-editor web client/i,
    /chat desktop client/i,
  ];
  for (const { where, text } of connectTexts()) for (const p of phrases) assert.doesNotMatch(text, p, where);
});

test('steps carry no placeholders and leave the verification prompt to its own block', () => {
  for (const id of CLIENT_IDS) {
    for (const method of ['automated', 'oauth', 'manual'] as const) {
      const s = stepsFor(id, method, URL_, 'linux');
      if (!s.supported) continue;
      for (const step of s.steps) {
        assert.doesNotMatch(step, /<mcp_url>|<server_name>/, `${id} ${method}`);
        assert.equal(step.includes(VERIFICATION_PROMPT), false);
      }
      assert.doesNotMatch(removalFor(id, method, URL_), /<server_name>/);
    }
  }
});

test('installer commands: this server’s own tarball, and the registry package only once the operator declares it published', () => {
  const own = `npx -y https://cairn.example.com/install/cairn-mcp-installer.tgz --client cursor --url ${URL_} --setup-code abc123`;
  const unpublished = installerCommands('cursor', 'https://cairn.example.com/', URL_, 'abc123', false);
  assert.deepEqual(unpublished, { command: own });
  const published = installerCommands('cursor', 'https://cairn.example.com', URL_, 'abc123', true);
  assert.deepEqual(published, {
    command: `npx cairn-mcp-installer@latest --client cursor --url ${URL_} --setup-code abc123`,
    fromThisServer: own,
  });
});

test('removal commands run the same installer as the install command', () => {
  for (const id of CLIENT_IDS) {
    const removal = removalFor(id, 'automated', URL_, installerRunner('https://cairn.example.com', false));
    if (!removal.includes('--uninstall')) continue;
    assert.match(
      removal,
      /^npx -y https:\/\/cairn\.example\.com\/install\/cairn-mcp-installer\.tgz --client \S+ --uninstall/,
      id,
    );
    assert.doesNotMatch(removal, /cairn-mcp-installer@latest/, id);
  }
});

test('config paths as users type them', () => {
  assert.equal(configFileFor('cursor', 'darwin'), '~/.cursor/mcp.json');
  assert.equal(configFileFor('claude-desktop', 'win32'), '%APPDATA%\\Claude\\claude_desktop_config.json');
  assert.equal(configFileFor('kiro', 'linux'), '~/.kiro/settings/mcp.json');
});

test('the browser stand-in for node:path joins like node:path', () => {
  const cases = [
    ['~', '.cursor', 'mcp.json'],
    ['/home/a/', 'x'],
    ['%APPDATA%', 'Code', 'User', 'mcp.json'],
    ['C:\\Users\\a', 'AppData', 'Roaming'],
  ];
  for (const parts of cases) {
    assert.equal(shim.posix.join(...parts), posix.join(...parts), parts.join(' '));
    assert.equal(shim.win32.join(...parts), win32.join(...parts), parts.join(' '));
  }
});

test('blockDocument for VS Code uses "servers"', () => {
  assert.deepEqual(Object.keys(JSON.parse(blockDocument('vscode', URL_, KEY))), ['servers']);
});

test('Automated: the checkbox adds --auto only where automatic mode is opt-in, and --marketplace only for Claude Code and only when this Cairn names one', () => {
  const base = 'https://cairn.example.com';
  const runner = `npx -y ${base}/install/cairn-mcp-installer.tgz`;
  const cmd = (id: (typeof CLIENT_IDS)[number], auto: boolean, marketplace?: string) =>
    installerCommands(id, base, URL_, 'CODE', false, { auto, marketplace }).command;
  assert.equal(
    cmd('claude-code', true, 'https://git.example.com/cairn.git'),
    `${runner} --client claude-code --url ${URL_} --auto --marketplace https://git.example.com/cairn.git --setup-code CODE`,
  );
  assert.equal(cmd('claude-code', true), `${runner} --client claude-code --url ${URL_} --auto --setup-code CODE`);
  assert.equal(cmd('codex', true, 'acme/cairn'), `${runner} --client codex --url ${URL_} --auto --setup-code CODE`);
  assert.equal(
    cmd('gemini-cli', true, 'acme/cairn'),
    `${runner} --client gemini-cli --url ${URL_} --auto --setup-code CODE`,
  );
  assert.equal(
    cmd('claude-code', false, 'acme/cairn'),
    `${runner} --client claude-code --url ${URL_} --setup-code CODE`,
  );
  for (const id of ['claude-desktop', 'cursor', 'kiro'] as const)
    assert.ok(!cmd(id, true).includes('--auto'), `${id}: no --auto (none, or always on)`);
  assert.deepEqual(
    CLIENT_IDS.filter((id) => automaticOffer(id).kind !== 'none'),
    ['claude-code', 'codex', 'kiro', 'gemini-cli'],
  );
  assert.equal(automaticOffer('claude-desktop').kind, 'none', 'Claude Desktop loads no skills from its entry');
});

test('a removal that is a command is told apart from steps in words (it gets a Copy button)', () => {
  assert.equal(isCommand(removalFor('claude-code', 'manual', 'https://c.example/mcp')), true);
  assert.equal(isCommand(removalFor('cursor', 'automated', 'https://c.example/mcp')), true);
  assert.equal(isCommand(removalFor('cursor', 'manual', 'https://c.example/mcp')), false);
  assert.equal(isCommand(removalFor('claude-desktop', 'oauth', 'https://c.example/mcp')), false);
});

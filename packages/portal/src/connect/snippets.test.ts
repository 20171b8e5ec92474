import assert from 'node:assert/strict';
import { posix, win32 } from 'node:path';
import { test } from 'node:test';
import { CLIENTS, CLIENT_IDS, VERIFICATION_PROMPT } from '@cairn/clients';
import * as shim from '../shims/node-path.js';
import { KEY_PLACEHOLDER, configFileFor, entryDocument, installerCommands, installerRunner, manualSnippets, oauthSnippets, removalFor, stepsFor } from './snippets.js';

const URL_ = 'https://cairn.example.com/mcp';
const KEY = 'cairn_tkn_abcdefghijklmnop';

test('the Manual entry is the catalog entry the installer writes, under the client container key', () => {
  for (const id of CLIENT_IDS) {
    if (id === 'claude-code' || id === 'codex') continue;
    const [snippet] = manualSnippets(id, URL_, 'linux', KEY);
    const doc = JSON.parse(snippet!.text) as Record<string, Record<string, unknown>>;
    assert.deepEqual(doc[CLIENTS[id].containerKey]!.cairn, CLIENTS[id].entry(URL_, KEY), id);
  }
});

test('without a generated key the snippet holds the placeholder, never a key', () => {
  for (const id of CLIENT_IDS) {
    const texts = manualSnippets(id, URL_, 'darwin').map((s) => s.text);
    assert.ok(texts.some((t) => t.includes(KEY_PLACEHOLDER)), id);
    assert.ok(texts.every((t) => !t.includes('cairn_tkn_')), id);
  }
});

test('Claude Code and Codex get their command and TOML table', () => {
  assert.equal(manualSnippets('claude-code', URL_, 'linux', KEY)[0]!.text, `claude mcp add --scope user --transport http cairn ${URL_} --header "Authorization: Bearer ${KEY}" --header "User-Agent: cairn-mcp-installer/1.0"`);
  const [table, token] = manualSnippets('codex', URL_, 'darwin', KEY);
  assert.match(table!.text, /^\[mcp_servers\.cairn\]\nurl = "https:\/\/cairn\.example\.com\/mcp"\nbearer_token_env_var = "CAIRN_MCP_TOKEN"/);
  assert.equal(token!.text, `launchctl setenv CAIRN_MCP_TOKEN ${KEY}`);
});

test('OAuth: url-only entries; Kiro is refused with the reason', () => {
  assert.deepEqual(JSON.parse(oauthSnippets('cursor', URL_, 'linux')[0]!.text), { mcpServers: { cairn: { url: URL_ } } });
  assert.equal(oauthSnippets('kiro', URL_, 'linux').length, 0);
  const kiro = stepsFor('kiro', 'oauth', URL_, 'linux');
  assert.equal(kiro.supported, false);
  assert.match(!kiro.supported ? kiro.reason : '', /local callback/);
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
  assert.deepEqual(published, { command: `npx cairn-mcp-installer@latest --client cursor --url ${URL_} --setup-code abc123`, fromThisServer: own });
});

test('removal commands run the same installer as the install command', () => {
  for (const id of CLIENT_IDS) {
    const removal = removalFor(id, 'automated', URL_, installerRunner('https://cairn.example.com', false));
    if (!removal.includes('--uninstall')) continue;
    assert.match(removal, /^npx -y https:\/\/cairn\.example\.com\/install\/cairn-mcp-installer\.tgz --client \S+ --uninstall/, id);
    assert.doesNotMatch(removal, /cairn-mcp-installer@latest/, id);
  }
});

test('config paths as users type them', () => {
  assert.equal(configFileFor('cursor', 'darwin'), '~/.cursor/mcp.json');
  assert.equal(configFileFor('claude-desktop', 'win32'), '%APPDATA%\\Claude\\claude_desktop_config.json');
  assert.equal(configFileFor('kiro', 'linux'), '~/.kiro/settings/mcp.json');
});

test('the browser stand-in for node:path joins like node:path', () => {
  const cases = [['~', '.cursor', 'mcp.json'], ['/home/a/', 'x'], ['%APPDATA%', 'Code', 'User', 'mcp.json'], ['C:\\Users\\a', 'AppData', 'Roaming']];
  for (const parts of cases) {
    assert.equal(shim.posix.join(...parts), posix.join(...parts), parts.join(' '));
    assert.equal(shim.win32.join(...parts), win32.join(...parts), parts.join(' '));
  }
});

test('entryDocument for VS Code uses "servers"', () => {
  assert.deepEqual(Object.keys(JSON.parse(entryDocument('vscode', URL_, KEY))), ['servers']);
});

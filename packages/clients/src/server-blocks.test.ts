// Golden shapes of the connection contract (docs/clients.md shows each client's), written out literally.
import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENTS } from './catalog.js';
import { claudeMcpAddArgs, claudeMcpAddCommand, codexTokenCommand } from './commands.js';
import { mcpUrlFor } from './constants.js';
import { bridgeBlock, codexTomlTable, headerBlock, oauthBlock } from './server-blocks.js';

const URL = 'https://cairn.example.com/mcp';
const KEY = 'cairn_tkn_abc123';

test('header-based entry: url + Authorization with Bearer + the installer User-Agent', () => {
  deepStrictEqual(headerBlock(URL, KEY), {
    url: 'https://cairn.example.com/mcp',
    headers: { Authorization: 'Bearer cairn_tkn_abc123', 'User-Agent': 'cairn-mcp-installer/1.0' },
  });
});

test('OAuth entry: url only, no headers object', () => {
  deepStrictEqual(oauthBlock(URL), { url: URL });
  ok(!('headers' in oauthBlock(URL)));
});

test('bridge entry: command, args in the exact order, key only in env.AUTH_HEADER', () => {
  const entry = bridgeBlock(URL, KEY);
  deepStrictEqual(entry, {
    command: 'npx',
    args: [
      '-y',
      'mcp-remote@0.1.38',
      URL,
      '--transport',
      'http-only',
      '--header',
      'Authorization:${AUTH_HEADER}',
      '--header',
      'User-Agent:cairn-mcp-installer/1.0',
    ],
    env: { AUTH_HEADER: 'Bearer cairn_tkn_abc123' },
  });
  const args = entry.args as string[];
  for (const arg of args.filter((_, i) => args[i - 1] === '--header'))
    ok(!arg.includes(' '), `no space in header arg ${arg}`);
  ok(!JSON.stringify(args).includes(KEY), 'the key is not in args');
  const referenced = /\$\{(\w+)\}/.exec(args.join(' '))?.[1];
  deepStrictEqual(Object.keys(entry.env as object), [referenced], 'env name equals the ${…} reference');
});

test('per-client entries, API key and OAuth', () => {
  const headers = { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' };
  const expected: Record<string, [unknown, unknown]> = {
    'claude-desktop': [
      {
        command: 'npx',
        args: [
          '-y',
          'mcp-remote@0.1.38',
          URL,
          '--transport',
          'http-only',
          '--header',
          'Authorization:${AUTH_HEADER}',
          '--header',
          'User-Agent:cairn-mcp-installer/1.0',
        ],
        env: { AUTH_HEADER: `Bearer ${KEY}` },
      },
      { url: URL },
    ],
    'claude-code': [
      { type: 'http', url: URL, headers },
      { type: 'http', url: URL },
    ],
    cursor: [{ url: URL, headers }, { url: URL }],
    vscode: [
      { type: 'http', url: URL, headers },
      { type: 'http', url: URL },
    ],
    codex: [{ url: URL, http_headers: headers }, { url: URL }],
    kiro: [{ url: URL, headers }, { url: URL }],
    'gemini-cli': [
      { type: 'http', url: URL, headers },
      { type: 'http', url: URL },
    ],
    windsurf: [{ serverUrl: URL, headers }, { serverUrl: URL }],
  };
  deepStrictEqual(Object.keys(CLIENTS).sort(), Object.keys(expected).sort());
  for (const [id, [withKey, oauth]] of Object.entries(expected)) {
    const client = CLIENTS[id as keyof typeof CLIENTS];
    deepStrictEqual(client.block(URL, KEY), withKey, id);
    deepStrictEqual(client.block(URL), oauth, `${id} oauth`);
  }
  equal(CLIENTS.vscode.containerKey, 'servers');
  equal(CLIENTS.codex.containerKey, 'mcp_servers');
});

test('codex TOML table, exactly as Codex reads it', () => {
  equal(
    codexTomlTable('cairn', URL, KEY),
    '[mcp_servers.cairn]\nurl = "https://cairn.example.com/mcp"\nhttp_headers = { "Authorization" = "Bearer cairn_tkn_abc123", "User-Agent" = "cairn-mcp-installer/1.0" }\n',
  );
  equal(codexTomlTable('my cairn', URL), '[mcp_servers."my cairn"]\nurl = "https://cairn.example.com/mcp"\n');
});

test('claude mcp add: user scope, http transport, headers with a space after the colon', () => {
  deepStrictEqual(claudeMcpAddArgs('cairn', URL, KEY), [
    'mcp',
    'add',
    '--scope',
    'user',
    '--transport',
    'http',
    'cairn',
    URL,
    '--header',
    'Authorization: Bearer cairn_tkn_abc123',
    '--header',
    'User-Agent: cairn-mcp-installer/1.0',
  ]);
  equal(
    claudeMcpAddCommand('cairn', URL, KEY),
    'claude mcp add --scope user --transport http cairn https://cairn.example.com/mcp --header "Authorization: Bearer cairn_tkn_abc123" --header "User-Agent: cairn-mcp-installer/1.0"',
  );
  equal(
    claudeMcpAddCommand('cairn', URL),
    'claude mcp add --scope user --transport http cairn https://cairn.example.com/mcp',
  );
});

test('codex token variable: launchctl on macOS, a profile line elsewhere', () => {
  equal(codexTokenCommand('darwin', KEY), 'launchctl setenv CAIRN_MCP_TOKEN cairn_tkn_abc123');
  equal(codexTokenCommand('linux', KEY), 'export CAIRN_MCP_TOKEN=cairn_tkn_abc123');
});

test('mcpUrlFor appends /mcp once', () => {
  equal(mcpUrlFor('https://cairn.example.com'), URL);
  equal(mcpUrlFor('https://cairn.example.com/'), URL);
  equal(mcpUrlFor(URL), URL);
});

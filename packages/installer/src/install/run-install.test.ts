import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { configPath } from '@cairn/clients';
import { parseTomlConfig } from '../files/toml-edit.js';
import { type TempMachine, tempMachine } from '../testing/temp-machine.js';

const BASE = 'https://cairn.example.com';
const URL = `${BASE}/mcp`;
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';
const headers = { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' };

function withMachine(name: string, fn: (m: TempMachine) => Promise<void>, options?: Parameters<typeof tempMachine>[0]) {
  test(name, async () => {
    const m = tempMachine(options);
    try {
      await fn(m);
    } finally {
      m.cleanup();
    }
  });
}
const pathOf = (m: TempMachine, client: Parameters<typeof configPath>[0]) => configPath(client, m);
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const backups = (path: string) => readdirSync(dirname(path)).filter((f) => f.endsWith('.cairn-backup'));
const mode = (path: string) => statSync(path).mode & 0o777;
const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

const golden: Array<[Parameters<typeof configPath>[0], string, unknown]> = [
  // The spec's bridge entry, written out here rather than taken from the code under test.
  [
    'claude-desktop',
    'mcpServers',
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
  ],
  ['claude-code', 'mcpServers', { type: 'http', url: URL, headers }],
  ['cursor', 'mcpServers', { url: URL, headers }],
  ['vscode', 'servers', { type: 'http', url: URL, headers }],
  ['kiro', 'mcpServers', { url: URL, headers }],
  ['gemini-cli', 'mcpServers', { type: 'http', url: URL, headers }],
  ['windsurf', 'mcpServers', { serverUrl: URL, headers }],
];
for (const [client, container, expected] of golden) {
  withMachine(`${client}: writes the spec's entry, mode 0600, and a second run changes no byte`, async (m) => {
    equal(await m.install('--client', client, '--url', BASE, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
    const path = pathOf(m, client);
    deepStrictEqual(readJson(path), { [container]: { cairn: expected } });
    equal(mode(path), 0o600);
    const first = readFileSync(path);
    equal(await m.install('--client', client, '--url', BASE, '--api-key', KEY, '--yes'), 0);
    deepStrictEqual(readFileSync(path), first);
    deepStrictEqual(backups(path), [], 'an unchanged file is not rewritten');
    ok(m.lines.some((l) => l.startsWith('Already up to date')));
    ok(!m.lines.join('\n').includes(KEY), 'the key is never printed');
  });
}

withMachine(
  'codex: TOML table with the key in http_headers (mode 0600, nothing to export), comments and unknown keys kept, the key never printed',
  async (m) => {
    const path = pathOf(m, 'codex');
    const original =
      '# my settings\nmodel = "o3" # favourite\n\n[mcp_servers.other]\ncommand = "x"\nfuture_key = true\n';
    write(path, original);
    equal(await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
    equal(
      readFileSync(path, 'utf8'),
      `${original}\n[mcp_servers.cairn]\nurl = "${URL}"\nhttp_headers = { "Authorization" = "Bearer ${KEY}", "User-Agent" = "cairn-mcp-installer/1.0" }\n`,
    );
    equal(mode(path), 0o600);
    ok(!m.lines.join('\n').includes(KEY), m.lines.join('\n'));
    ok(!m.lines.join('\n').includes('export '), 'no shell profile line to add');
    const first = readFileSync(path, 'utf8');
    await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes');
    equal(readFileSync(path, 'utf8'), first);
    equal(await m.install('--client', 'codex', '--url', 'https://new.example.com', '--api-key', KEY, '--yes'), 0);
    equal(readFileSync(path, 'utf8'), first.replace(URL, 'https://new.example.com/mcp'), 'updated in place');
    equal(await m.install('--client', 'codex', '--uninstall'), 0);
    equal(readFileSync(path, 'utf8'), original);
  },
);

withMachine(
  "codex: an older install's table (key in CAIRN_MCP_TOKEN) is moved to the key in the file; the user is told the variable is no longer needed; launchctl is never run",
  async (m) => {
    const path = pathOf(m, 'codex');
    write(
      path,
      `[mcp_servers.cairn]\nurl = "${URL}"\nbearer_token_env_var = "CAIRN_MCP_TOKEN"\nhttp_headers = { "User-Agent" = "cairn-mcp-installer/1.0" }\n`,
    );
    (m.env as Record<string, string>).CAIRN_MCP_TOKEN = KEY;
    equal(await m.install('--client', 'codex', '--url', BASE, '--yes'), 0, m.errors.join('\n'));
    deepStrictEqual(JSON.parse(JSON.stringify(parseTomlConfig(path, readFileSync(path, 'utf8')))), {
      mcp_servers: {
        cairn: { url: URL, http_headers: { 'User-Agent': 'cairn-mcp-installer/1.0', Authorization: `Bearer ${KEY}` } },
      },
    });
    equal(mode(path), 0o600);
    match(
      m.lines.join('\n'),
      /no longer from CAIRN_MCP_TOKEN: delete that variable's line from your shell profile \(and run launchctl unsetenv CAIRN_MCP_TOKEN\)/,
    );
    deepStrictEqual(m.ran, []);
  },
  { platform: 'darwin' },
);

withMachine('vscode JSONC: comments, BOM, CRLF and other servers kept', async (m) => {
  const path = pathOf(m, 'vscode');
  const original =
    '\uFEFF{\r\n\t// my servers\r\n\t"servers": {\r\n\t\t"other": { "type": "stdio", "command": "x" }, // keep\r\n\t},\r\n\t"inputs": []\r\n}\r\n';
  write(path, original);
  equal(await m.install('--client', 'vscode', '--url', BASE, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
  const text = readFileSync(path, 'utf8');
  ok(text.startsWith('\uFEFF{\r\n\t// my servers\r\n'), text);
  ok(text.includes('// keep'));
  ok(!/[^\r]\n/.test(text), 'CRLF kept throughout');
  ok(text.includes('\t\t"cairn": {\r\n'), 'tab indentation kept');
  equal(backups(path).length, 1);
  equal(
    readFileSync(join(dirname(path), backups(path)[0]!), 'utf8'),
    original,
    'the backup holds the file before the change',
  );
  equal(await m.install('--client', 'vscode', '--uninstall'), 0);
  const removed = readFileSync(path, 'utf8');
  ok(removed.includes('"other"') && removed.includes('// my servers') && !removed.includes('cairn'));
});

withMachine('a file that does not parse is left byte-for-byte untouched, the error says line and column', async (m) => {
  const path = pathOf(m, 'cursor');
  const broken = '{\n  "mcpServers": {\n    "x": { "url": "u" }\n  ,,\n}\n';
  write(path, broken);
  equal(await m.install('--client', 'cursor', '--url', BASE, '--api-key', KEY, '--yes'), 1);
  equal(readFileSync(path, 'utf8'), broken);
  deepStrictEqual(backups(path), []);
  match(m.errors.join('\n'), new RegExp(`${path.replace(/[.]/g, '\\.')}:4:4: .*left untouched`));
});

withMachine('a comment in strict JSON (Claude Code) is refused, not rewritten', async (m) => {
  const path = pathOf(m, 'claude-code');
  write(path, '{\n  // no\n  "a": 1\n}\n');
  equal(await m.install('--client', 'claude-code', '--url', BASE, '--api-key', KEY, '--yes'), 1);
  match(m.errors.join('\n'), /:2:3: comments are not allowed/);
  equal(readFileSync(path, 'utf8'), '{\n  // no\n  "a": 1\n}\n');
});

withMachine('broken TOML is untouched, with line and column', async (m) => {
  const path = pathOf(m, 'codex');
  write(path, 'model = "o3"\nx = = 1\n');
  equal(await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes'), 1);
  match(m.errors.join('\n'), /config\.toml:2:5: /);
  equal(readFileSync(path, 'utf8'), 'model = "o3"\nx = = 1\n');
});

withMachine('a symlinked config is edited at its target; the link stays a link', async (m) => {
  const path = pathOf(m, 'cursor');
  const target = join(m.home, 'dotfiles', 'cursor-mcp.json');
  write(target, '{ "mcpServers": { "mine": { "url": "https://x" } } }\n');
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
  equal(await m.install('--client', 'cursor', '--url', BASE, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
  ok(lstatSync(path).isSymbolicLink());
  equal(readlinkSync(path), target);
  deepStrictEqual(Object.keys(readJson(target).mcpServers), ['mine', 'cairn']);
  equal(mode(target), 0o600);
});

withMachine(
  'kiro: aliases run the same install into ~/.kiro, --oauth is refused with the reason (its hooks use the key)',
  async (m) => {
    const path = join(m.home, '.kiro', 'settings', 'mcp.json');
    equal(await m.install('--client', 'kiro-cli', '--url', BASE, '--api-key', KEY, '--yes'), 0);
    deepStrictEqual(readJson(path).mcpServers.cairn, { url: URL, headers });
    equal(mode(path), 0o600);
    equal(await m.install('--client', 'kiro-ide', '--url', BASE, '--api-key', KEY, '--yes'), 0);
    ok(
      m.lines.some((l) => l.startsWith('Already up to date')),
      'kiro-ide edits the same file as kiro-cli',
    );
    equal(await m.install('--client', 'kiro-ide', '--url', BASE, '--oauth', '--yes'), 2);
    match(m.errors.join('\n'), /skills and capture hooks use too.*Connect > OAuth/s);
  },
  { env: { KIRO_HOME: '' } },
);

test('kiro with $KIRO_HOME set', async () => {
  const m = tempMachine();
  try {
    (m.env as Record<string, string>).KIRO_HOME = join(m.home, 'kh');
    equal(await m.install('--client', 'kiro', '--url', BASE, '--api-key', KEY, '--yes'), 0);
    ok(existsSync(join(m.home, 'kh', 'settings', 'mcp.json')));
    ok(!existsSync(join(m.home, '.kiro')));
  } finally {
    m.cleanup();
  }
});

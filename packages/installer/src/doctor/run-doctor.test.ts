import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { bridgeBlock, configPath } from '@cairn/clients';
import { main } from '../main.js';
import { inHome, type TempMachine, tempMachine } from '../testing/temp-machine.js';

const URL = 'https://cairn.example.com/mcp';
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';
const UA = 'cairn-mcp-installer/1.0';
const headers = { Authorization: `Bearer ${KEY}`, 'User-Agent': UA };
const bridge = bridgeBlock(URL, KEY) as { command: string; args: string[]; env: Record<string, string> };
// A second key, so the two bridge entries are not duplicates of each other once repaired.
const spacedBridge = bridgeBlock(URL, 'cairn_tkn_SSSSSSSSSSSSSSSSSSSSSSSSSSSSSS000000') as typeof bridge;

type Client = Parameters<typeof configPath>[0];
const write = (path: string, text: string, mode = 0o600) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
};
const writeJson = (m: TempMachine, client: Client, value: unknown, mode?: number) =>
  write(configPath(client, m), `${JSON.stringify(value, null, 2)}\n`, mode);
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const doctor = (m: TempMachine, ...flags: string[]) =>
  main(['doctor', ...flags], m, 'v20.20.2', (line) => m.errors.push(line));
const mode = (path: string) => statSync(path).mode & 0o777;

/** One fixture per repairable finding, each in its client's own file. */
function repairableFixtures(m: TempMachine) {
  writeJson(m, 'claude-code', { numStartups: 3, mcpServers: { cairn: { url: URL, headers } } });
  writeJson(m, 'kiro', {
    mcpServers: {
      cairn: { url: URL, headers: { Authorization: KEY, 'User-Agent': UA }, autoApprove: ['list_datapacks'] },
    },
  });
  writeJson(m, 'windsurf', { mcpServers: { cairn: { serverUrl: URL, headers: { Authorization: `Bearer ${KEY}` } } } });
  writeJson(m, 'claude-desktop', {
    mcpServers: {
      cairn: { ...bridge, env: { AUTH_TOKEN: `Bearer ${KEY}` } },
      'cairn-spaced': {
        ...spacedBridge,
        args: spacedBridge.args.map((a) => a.replace(/^(Authorization|User-Agent):/, '$1: ')),
      },
      other: { command: 'node', args: ['x.js'] },
    },
  });
  writeJson(m, 'gemini-cli', { theme: 'dark', mcpServers: { cairn: { url: URL, headers: { API_KEY: KEY } } } });
  write(
    configPath('vscode', m),
    `{\n  // my servers\n  "servers": {\n    "cairn": { "type": "http", "url": "${URL}", "headers": ${JSON.stringify(headers)} }\n  }\n}\n`,
    0o644,
  );
  write(
    configPath('codex', m),
    `# mine\nmodel = "o3"\n\n[mcp_servers.cairn]\nurl = "${URL}"\nbearer_token_env_var = "CAIRN_MCP_TOKEN"\n`,
    0o644,
  );
  // The older Codex table reads its key from the environment: set here, so only its missing User-Agent is a finding.
  (m.env as Record<string, string>).CAIRN_MCP_TOKEN = KEY;
}

test('doctor reports each problem on one line with the file, the problem and the fix; exit 1', () =>
  inHome(async (m) => {
    repairableFixtures(m);
    writeJson(m, 'cursor', { mcpServers: { cairn: { url: URL, headers }, 'cairn-oauth': { url: URL } } });
    equal(await doctor(m), 1, m.errors.join('\n'));
    const out = m.lines.join('\n');
    const line = (client: Client, text: string) =>
      match(out, new RegExp(`^${configPath(client, m).replace(/[.]/g, '\\.')}: ${text}.*\\. Fix: `, 'm'));
    line('claude-code', '"cairn" no "type": "http" \\(Claude Code skips');
    line('kiro', '"cairn" the Authorization header lacks the "Bearer " prefix');
    line('windsurf', '"cairn" no "User-Agent: cairn-mcp-installer/1.0" header');
    line('claude-desktop', '"cairn" args reference \\$\\{AUTH_HEADER\\} but env sets AUTH_TOKEN');
    line('claude-desktop', '"cairn-spaced" space in bridge header arg "Authorization: \\$\\{AUTH_HEADER\\}"');
    line('gemini-cli', '"cairn" older entry with an API_KEY header');
    line('vscode', 'holds an API key but is mode 0644');
    line('codex', '"cairn" no "User-Agent: cairn-mcp-installer/1.0" header');
    line(
      'cursor',
      'both methods configured for https://cairn\\.example\\.com/mcp: OAuth entry "cairn-oauth" and API-key entry "cairn"',
    );
    ok(!out.includes('"other"'), "entries that are not Cairn's are left alone");
    ok(!out.includes(KEY), 'keys are masked');
    match(m.lines.at(-1)!, /^10 problems\. Run doctor --fix/);
  }));

test('doctor --fix repairs through the install write path, then a second doctor run reports nothing', () =>
  inHome(async (m) => {
    repairableFixtures(m);
    const dotfile = join(m.home, 'dotfiles', 'cursor.json');
    write(dotfile, `${JSON.stringify({ mcpServers: { cairn: { url: URL, headers: { API_KEY: KEY } } } })}\n`, 0o644);
    mkdirSync(dirname(configPath('cursor', m)), { recursive: true });
    symlinkSync(dotfile, configPath('cursor', m));
    equal(await doctor(m, '--fix'), 0, m.lines.join('\n'));
    ok(m.lines.filter((l) => l.startsWith('Fixed: ')).length >= 9, m.lines.join('\n'));
    deepStrictEqual(readJson(configPath('claude-code', m)), {
      numStartups: 3,
      mcpServers: { cairn: { type: 'http', url: URL, headers } },
    });
    deepStrictEqual(readJson(configPath('kiro', m)).mcpServers.cairn, {
      url: URL,
      headers,
      autoApprove: ['list_datapacks'],
    });
    deepStrictEqual(readJson(configPath('windsurf', m)).mcpServers.cairn, { serverUrl: URL, headers });
    const desktop = readJson(configPath('claude-desktop', m)).mcpServers;
    deepStrictEqual(
      [desktop.cairn, desktop['cairn-spaced'], desktop.other],
      [bridge, spacedBridge, { command: 'node', args: ['x.js'] }],
    );
    deepStrictEqual(readJson(configPath('gemini-cli', m)), {
      theme: 'dark',
      mcpServers: { cairn: { type: 'http', url: URL, headers } },
    });
    const vscode = readFileSync(configPath('vscode', m), 'utf8');
    ok(vscode.includes('// my servers'));
    equal(mode(configPath('vscode', m)), 0o600);
    match(
      readFileSync(configPath('codex', m), 'utf8'),
      /^# mine\n[\s\S]*http_headers = \{ "?User-Agent"? = "cairn-mcp-installer\/1\.0" \}/,
    );
    deepStrictEqual(readJson(dotfile).mcpServers.cairn, { url: URL, headers }, 'a symlink is fixed at its target');
    equal(mode(dotfile), 0o600);
    ok(
      readdirSync(dirname(configPath('claude-code', m))).some((f) => f.endsWith('.cairn-backup')),
      'backed up first',
    );
    m.lines.length = 0;
    equal(await doctor(m), 0, m.lines.join('\n'));
    match(m.lines.join('\n'), /^No problems: 9 Cairn entries in 8 config files checked\.$/);
    const before = readFileSync(configPath('claude-desktop', m), 'utf8');
    equal(await doctor(m, '--fix'), 0);
    equal(readFileSync(configPath('claude-desktop', m), 'utf8'), before, '--fix on a clean machine changes no byte');
  }));

test('doctor --fix leaves what it cannot decide or has no key for, and says what to do', () =>
  inHome(async (m) => {
    writeJson(m, 'cursor', { mcpServers: { cairn: { url: URL, headers }, 'cairn-oauth': { url: URL } } });
    writeJson(m, 'claude-desktop', { mcpServers: { cairn: { ...bridge, env: {} } } });
    write(configPath('kiro', m), '{ "mcpServers": { "cairn": ,, } }');
    const before = readFileSync(configPath('cursor', m), 'utf8');
    equal(await doctor(m, '--fix'), 1);
    const out = m.lines.join('\n');
    match(
      out,
      /Left for you: .*cursor.*both methods configured.*Fix: decide which to keep, then remove the other: npx -y https:\/\/cairn\.example\.com\/install\/cairn-mcp-installer\.tgz --client cursor --uninstall --server-name <name>/,
    );
    match(
      out,
      /Left for you: .*claude_desktop_config\.json: "cairn" the entry holds no API key\. Fix: run the installer again with --api-key/,
    );
    match(out, /Left for you: .*kiro.*does not parse \(1:\d+: .*\)\. Fix: repair the file by hand/);
    equal(readFileSync(configPath('cursor', m), 'utf8'), before);
    match(m.lines.at(-1)!, /^4 problems left\.$/);
  }));

test('doctor looks in default locations an override moved away from, and finds entries by key and URL', () =>
  inHome(async (m) => {
    (m.env as Record<string, string>).KIRO_HOME = join(m.home, 'kh');
    write(
      join(m.home, '.kiro', 'settings', 'mcp.json'),
      JSON.stringify({ mcpServers: { notes: { url: URL, headers: { Authorization: `Bearer ${KEY}` } } } }),
      0o644,
    );
    equal(await doctor(m), 1);
    match(
      m.lines.join('\n'),
      /\.kiro\/settings\/mcp\.json \(not the file in use: an environment variable points the client elsewhere\): "notes" no "User-Agent/,
    );
  }));

test('an installed machine is clean; Node too old is reported (this Node and the one that starts the bridge)', () =>
  inHome(async (m) => {
    for (const client of [
      'claude-desktop',
      'claude-code',
      'cursor',
      'vscode',
      'codex',
      'kiro',
      'gemini-cli',
      'windsurf',
    ]) {
      equal(await m.install('--client', client, '--url', URL, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
    }
    m.lines.length = 0;
    equal(await doctor(m), 0, m.lines.join('\n'));
    equal(await main(['doctor'], m, 'v18.19.0', () => {}), 1);
    match(m.lines.join('\n'), /Node\.js 18\.19\.0 runs this installer: too old \(needs 20\.18\.1\)/);
    m.lines.length = 0;
    const node = join(m.home, 'old-node');
    write(node, '#!/bin/sh\necho v18.0.0\n', 0o755);
    const withNode = tempMachine({ programs: { node } });
    try {
      writeJson(withNode, 'claude-desktop', { mcpServers: { cairn: bridge } });
      equal(await doctor(withNode), 1);
      match(withNode.lines.join('\n'), /Node\.js 18\.0\.0 at .*old-node starts Claude Desktop's bridge: too old/);
    } finally {
      withNode.cleanup();
    }
  }));

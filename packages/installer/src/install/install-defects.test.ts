import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { configPath } from '@cairn/clients';
import { inHome, tempMachine } from '../testing/temp-machine.js';

// Defects a newcomer met in their first hour, each reproduced here before it was fixed.

const BASE = 'https://cairn.example.com';
const URL = `${BASE}/mcp`;
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';

test('a config whose entry container is not an object is refused with the file and the key named; nothing is written', () =>
  inHome(async (m) => {
    const path = configPath('cursor', m);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '{"mcpServers": "oops"}\n');
    equal(await m.install('--client', 'cursor', '--url', BASE, '--api-key', KEY, '--yes'), 1);
    const said = m.errors.join('\n');
    match(
      said,
      new RegExp(
        `${path.replace(/[.]/g, '\\.')}:1:16: "mcpServers" is a string, not an object holding the MCP entries\\. The file was left untouched`,
      ),
    );
    ok(!said.includes('Unexpected error'), said);
    equal(readFileSync(path, 'utf8'), '{"mcpServers": "oops"}\n');
    const codex = configPath('codex', m);
    mkdirSync(dirname(codex), { recursive: true });
    writeFileSync(codex, 'model = "o3"\nmcp_servers = 42\n');
    equal(await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes'), 1);
    match(m.errors.at(-1)!, /config\.toml:2:1: "mcp_servers" is a number, not a table holding the MCP entries/);
    equal(await m.install('--client', 'cursor', '--uninstall'), 1);
    equal(readFileSync(path, 'utf8'), '{"mcpServers": "oops"}\n');
    m.lines.length = 0;
    equal(await m.install('doctor'), 1);
    match(
      m.lines.join('\n'),
      /mcp\.json: cannot be used \(1:16: "mcpServers" is a string, not an object holding the MCP entries\)\. Fix: repair the file by hand/,
    );
  }));

test('--url without a scheme is refused before anything is written or any code is spent, and says how to write it', () =>
  inHome(async (m) => {
    let fetched = 0;
    const fetch: typeof globalThis.fetch = async () => {
      fetched++;
      return new Response('{}');
    };
    const machine = tempMachine({ fetch });
    try {
      for (const url of ['cairn.example.com', 'localhost:3000', 'cairn.example.com/mcp']) {
        machine.errors.length = 0;
        equal(await machine.install('--client', 'cursor', '--url', url, '--setup-code', 'cairn_stp_x', '--yes'), 2);
        match(
          machine.errors.join('\n'),
          new RegExp(
            `--url ${url.replace(/[.]/g, '\\.')} has no scheme: write the whole address, for example --url https://`,
          ),
        );
        ok(!machine.errors.join('\n').includes('Unexpected error'));
      }
      equal(
        await machine.install(
          '--client',
          'claude-desktop',
          '--url',
          'ftp://cairn.example.com',
          '--api-key',
          KEY,
          '--yes',
        ),
        2,
      );
      match(
        machine.errors.at(-1)!,
        /must start with https:\/\/ \(or http:\/\/ for a server on this machine or network\)/,
      );
      equal(
        await machine.install(
          '--client',
          'cursor',
          '--url',
          'https://cairn.example.com/?team=1',
          '--api-key',
          KEY,
          '--yes',
        ),
        2,
      );
      match(machine.errors.at(-1)!, /no \?query or #fragment/);
      equal(fetched, 0, 'no setup code was exchanged');
      equal(existsSync(join(machine.home, '.cursor')), false, 'nothing written');
      equal(existsSync(join(machine.home, '.config')), false, 'nothing written');
    } finally {
      machine.cleanup();
    }
    // An entry written by hand (or by an older installer) without a scheme: re-running without --url says to give one.
    const path = configPath('cursor', m);
    mkdirSync(dirname(path), { recursive: true });
    const broken = `${JSON.stringify({ mcpServers: { cairn: { url: 'cairn.example.com/mcp', headers: { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' } } } }, null, 2)}\n`;
    writeFileSync(path, broken);
    equal(await m.install('--client', 'cursor', '--yes'), 2);
    match(
      m.errors.at(-1)!,
      /The "cairn" entry in .*mcp\.json has the address cairn\.example\.com\/mcp, which has no scheme: run again with --url https:\/\//,
    );
    equal(readFileSync(path, 'utf8'), broken);
    equal(await m.install('--client', 'cursor', '--url', BASE, '--yes'), 0, m.errors.join('\n'));
    equal(JSON.parse(readFileSync(path, 'utf8')).mcpServers.cairn.url, URL);
  }));

test('doctor flags an entry whose address has no scheme (direct and bridge), and cannot "fix" it by guessing', () =>
  inHome(async (m) => {
    const headers = { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' };
    const cursor = configPath('cursor', m);
    mkdirSync(dirname(cursor), { recursive: true });
    writeFileSync(cursor, JSON.stringify({ mcpServers: { cairn: { url: 'cairn.example.com/mcp', headers } } }), {
      mode: 0o600,
    });
    const desktop = configPath('claude-desktop', m);
    mkdirSync(dirname(desktop), { recursive: true });
    const args = [
      '-y',
      'mcp-remote@0.1.38',
      'cairn.example.com/mcp',
      '--transport',
      'http-only',
      '--header',
      'Authorization:${AUTH_HEADER}',
      '--header',
      'User-Agent:cairn-mcp-installer/1.0',
    ];
    writeFileSync(
      desktop,
      JSON.stringify({ mcpServers: { cairn: { command: 'npx', args, env: { AUTH_HEADER: `Bearer ${KEY}` } } } }),
      { mode: 0o600 },
    );
    equal(await m.install('doctor'), 1);
    const out = m.lines.join('\n');
    match(
      out,
      /mcp\.json: "cairn" the address "cairn\.example\.com\/mcp" has no scheme, so the client cannot connect\. Fix: run the installer again with the whole address: --url https:\/\//,
    );
    match(out, /claude_desktop_config\.json: "cairn" the address "cairn\.example\.com\/mcp" has no scheme/);
    ok(!out.includes('doctor --fix does this'), out);
    m.lines.length = 0;
    equal(await m.install('doctor', '--fix'), 1);
    equal(
      JSON.parse(readFileSync(cursor, 'utf8')).mcpServers.cairn.url,
      'cairn.example.com/mcp',
      'left as it is: the scheme cannot be guessed',
    );
  }));

test('doctor reports two entries with the same address and key, and suggests --fix only when something is left that it can fix', () =>
  inHome(async (m) => {
    const headers = { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' };
    const cursor = configPath('cursor', m);
    mkdirSync(dirname(cursor), { recursive: true });
    writeFileSync(
      cursor,
      JSON.stringify({
        mcpServers: {
          cairn: { url: URL, headers },
          'cairn-copy': { url: `${URL}/`, headers },
          other: {
            url: URL,
            headers: { Authorization: 'Bearer cairn_tkn_other', 'User-Agent': 'cairn-mcp-installer/1.0' },
          },
        },
      }),
      { mode: 0o600 },
    );
    equal(await m.install('doctor'), 1);
    const out = m.lines.join('\n');
    match(
      out,
      /mcp\.json: "cairn-copy" repeats "cairn": same address \(https:\/\/cairn\.example\.com\/mcp\) and same key, so the client runs Cairn twice\. Fix: remove one: npx .*--client cursor --uninstall --server-name cairn-copy/,
    );
    ok(!/"other" repeats/.test(out), 'another key for the same address is not a duplicate');
    equal(m.lines.at(-1), '1 problem. doctor --fix cannot repair it: follow the Fix above.');
    // One repairable problem beside it: then --fix is suggested.
    writeFileSync(
      cursor,
      JSON.stringify({ mcpServers: { cairn: { url: URL, headers: { Authorization: `Bearer ${KEY}` } } } }),
      { mode: 0o600 },
    );
    m.lines.length = 0;
    equal(await m.install('doctor'), 1);
    equal(m.lines.at(-1), '1 problem. Run doctor --fix to repair what can be repaired safely.');
  }));

/** Every file and folder under the home, with the bytes (and, with `modes`, the mode) of each file. */
function tree(dir: string, root = dir, modes = false): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const name = path.slice(root.length + 1);
    if (entry.isDirectory()) {
      out[`${name}/`] = 'dir';
      Object.assign(out, tree(path, root, modes));
    } else out[name] = `${modes ? (statSync(path).mode & 0o777).toString(8) : ''} ${readFileSync(path, 'utf8')}`;
  }
  return out;
}

const CLIENTS_WITH_FILES = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'codex',
  'kiro',
  'gemini-cli',
  'windsurf',
];

test('install then uninstall in a fresh home leaves nothing behind: no file, no empty {} and no empty folder, no backup', () =>
  inHome(async (m) => {
    for (const client of CLIENTS_WITH_FILES) {
      const auto =
        client === 'claude-code'
          ? ['--auto', '--marketplace', 'https://git.example.com/cairn.git']
          : client === 'codex'
            ? ['--auto']
            : [];
      equal(
        await m.install('--client', client, '--url', BASE, '--api-key', KEY, '--yes', ...auto),
        0,
        m.errors.join('\n'),
      );
      equal(await m.install('--client', client, '--url', BASE, '--api-key', KEY, '--yes'), 0, 'a re-run');
      equal(await m.install('--client', client, '--uninstall'), 0, m.errors.join('\n'));
      deepStrictEqual(tree(m.home), {}, `after ${client}`);
    }
  }));

test('install then uninstall restores existing files byte for byte, and leaves no backup holding the key', () =>
  inHome(async (m) => {
    const files: Record<string, string> = {
      [configPath('cursor', m)]: '{\n  "mcpServers": {\n    "other": { "command": "x", "args": ["--x"] }\n  }\n}\n',
      [configPath('vscode', m)]:
        '{\n  // mine\n  "servers": {\n    "other": { "type": "stdio", "command": "x" } // keep\n  },\n  "inputs": []\n}\n',
      [configPath('gemini-cli', m)]: '{\n  "theme": "dark"\n}\n',
      [configPath('claude-code', m)]: '{"numStartups":3,"projects":{}}',
      [configPath('codex', m)]: '# mine\nmodel = "o3"\n',
      [join(m.home, '.claude', 'settings.json')]: '{\n  "model": "opus",\n  "enabledPlugins": { "x@y": true }\n}\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    const before = tree(m.home);
    for (const client of ['cursor', 'vscode', 'gemini-cli', 'claude-code', 'codex']) {
      const auto = client === 'claude-code' ? ['--auto', '--marketplace', 'https://git.example.com/cairn.git'] : [];
      equal(
        await m.install('--client', client, '--url', BASE, '--api-key', KEY, '--yes', ...auto),
        0,
        m.errors.join('\n'),
      );
      equal(
        await m.install(
          '--client',
          client,
          '--url',
          BASE,
          '--api-key',
          'cairn_tkn_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBB654321',
          '--yes',
        ),
        0,
        m.errors.join('\n'),
      );
    }
    const backups = Object.keys(tree(m.home)).filter((f) => f.endsWith('.cairn-backup'));
    deepStrictEqual(
      backups.sort(),
      [
        '.claude.json.cairn-backup',
        '.claude/settings.json.cairn-backup',
        '.codex/config.toml.cairn-backup',
        '.config/Code/User/mcp.json.cairn-backup',
        '.cursor/mcp.json.cairn-backup',
        '.gemini/settings.json.cairn-backup',
      ],
      'one backup per changed file',
    );
    for (const backup of backups) equal(statSync(join(m.home, backup)).mode & 0o777, 0o600, backup);
    for (const client of ['cursor', 'vscode', 'gemini-cli', 'claude-code', 'codex'])
      equal(await m.install('--client', client, '--uninstall'), 0, m.errors.join('\n'));
    deepStrictEqual(tree(m.home), before);
    match(m.lines.join('\n'), /Removed the installer's backup .*\.cursor\/mcp\.json\.cairn-backup \(it held the key\)/);
  }));

import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { configPath } from '@cairn/clients';
import { inHome } from '../testing/temp-machine.js';

const BASE = 'https://cairn.example.com';
const URL = `${BASE}/mcp`;
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';
const headers = { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' };

const write = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
};
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

test('--uninstall removes only that entry and says what stays', () =>
  inHome(async (m) => {
    const path = configPath('claude-desktop', m);
    write(path, { globalShortcut: 'x', mcpServers: { other: { command: 'node', args: ['a.js'] } } });
    await m.install('--client', 'claude-desktop', '--url', BASE, '--api-key', KEY, '--yes');
    await m.install(
      '--client',
      'claude-desktop',
      '--url',
      BASE,
      '--api-key',
      KEY,
      '--server-name',
      'cairn-work',
      '--yes',
    );
    equal(await m.install('--client', 'claude-desktop', '--uninstall'), 0);
    deepStrictEqual(Object.keys(readJson(path).mcpServers), ['other', 'cairn-work']);
    equal(readJson(path).globalShortcut, 'x');
    match(m.lines.join('\n'), /Kept the other entries: other, cairn-work/);
    match(m.lines.join('\n'), /Settings > Extensions/);
    equal(await m.install('--client', 'claude-desktop', '--uninstall', '--server-name', 'cairn-work'), 0);
    deepStrictEqual(readJson(path).mcpServers, { other: { command: 'node', args: ['a.js'] } });
    equal(await m.install('--client', 'claude-desktop', '--uninstall'), 0);
    match(m.lines.at(-1)!, /nothing to remove/);
  }));

test('one method per client: OAuth beside an API-key entry is refused, and the reverse, with how to switch', () =>
  inHome(async (m) => {
    const path = configPath('cursor', m);
    await m.install('--client', 'cursor', '--url', BASE, '--api-key', KEY, '--yes');
    const before = readFileSync(path, 'utf8');
    equal(await m.install('--client', 'cursor', '--url', BASE, '--oauth', '--server-name', 'cairn-oauth', '--yes'), 2);
    match(m.errors.join('\n'), /already has an API-key entry "cairn".*\n.*\n.*--uninstall --server-name cairn/);
    equal(readFileSync(path, 'utf8'), before);
    await m.install('--client', 'cursor', '--uninstall');
    equal(await m.install('--client', 'cursor', '--url', BASE, '--oauth', '--yes'), 0);
    deepStrictEqual(readJson(path).mcpServers.cairn, { url: URL });
    m.errors.length = 0;
    equal(await m.install('--client', 'cursor', '--url', BASE, '--api-key', KEY, '--yes'), 2);
    match(m.errors.join('\n'), /already has an OAuth entry "cairn"/);
    deepStrictEqual(readJson(path).mcpServers.cairn, { url: URL });
  }));

test('legacy entries are migrated, reusing the key they hold', () =>
  inHome(async (m) => {
    const cursor = configPath('cursor', m);
    write(cursor, { mcpServers: { cairn: { url: URL, headers: { API_KEY: KEY } } } });
    equal(await m.install('--client', 'cursor', '--yes'), 0, m.errors.join('\n'));
    deepStrictEqual(readJson(cursor).mcpServers.cairn, { url: URL, headers });
    match(m.lines.join('\n'), /older "cairn" entry/);
    const desktop = configPath('claude-desktop', m);
    write(desktop, {
      mcpServers: { cairn: { command: 'npx', args: ['-y', 'mcp-remote', URL, '--allow-http'], env: { API_KEY: KEY } } },
    });
    equal(await m.install('--client', 'claude-desktop', '--yes'), 0, m.errors.join('\n'));
    const entry = readJson(desktop).mcpServers.cairn;
    deepStrictEqual(entry.env, { AUTH_HEADER: `Bearer ${KEY}` });
    equal(entry.args[1], 'mcp-remote@0.1.38');
    ok(!entry.args.includes('--allow-http'));
  }));

test('--dry-run writes nothing and shows a diff with the key masked', () =>
  inHome(async (m) => {
    const path = configPath('gemini-cli', m);
    write(path, { theme: 'dark' });
    equal(await m.install('--client', 'gemini-cli', '--url', BASE, '--api-key', KEY, '--dry-run'), 0);
    deepStrictEqual(readJson(path), { theme: 'dark' });
    const out = m.lines.join('\n');
    match(out, /^\+\s+"cairn": \{$/m);
    match(out, /Bearer cairn_tkn_…3456/);
    ok(!out.includes(KEY));
    equal(statSync(dirname(path)).isDirectory(), true);
    equal(await m.install('--client', 'windsurf', '--url', BASE, '--api-key', KEY, '--dry-run'), 0);
    let exists = true;
    try {
      statSync(configPath('windsurf', m));
    } catch {
      exists = false;
    }
    equal(exists, false, 'no file created by a dry run');
  }));

test('key sources: CAIRN_API_KEY, refusal of a non-Cairn key, a clear error without any key', () =>
  inHome(async (m) => {
    equal(await m.install('--client', 'cursor', '--url', BASE, '--yes'), 1);
    match(m.errors.join('\n'), /No API key: pass --api-key, --setup-code or set CAIRN_API_KEY/);
    equal(await m.install('--client', 'cursor', '--url', BASE, '--api-key', 'sk-123', '--yes'), 1);
    match(m.errors.at(-1)!, /start with cairn_tkn_/);
    (m.env as Record<string, string>).CAIRN_API_KEY = KEY;
    equal(await m.install('--client', 'cursor', '--url', BASE, '--yes'), 0);
    deepStrictEqual(readJson(configPath('cursor', m)).mcpServers.cairn, { url: URL, headers });
  }));

import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENTS } from './catalog.js';
import { diagnoseBlock, looksLikeCairn } from './diagnose-block.js';
import { bridgeBlock } from './server-blocks.js';

const URL = 'https://cairn.example.com/mcp';
const KEY = 'cairn_tkn_abc123';
const codes = (client: keyof typeof CLIENTS, value: unknown) =>
  diagnoseBlock(CLIENTS[client], value)?.problems.map((p) => p.code);

test('every entry the catalog writes is clean for its client', () => {
  for (const client of Object.values(CLIENTS)) {
    deepStrictEqual(diagnoseBlock(client, client.block(URL, KEY))?.problems, [], client.id);
    if (client.installerOAuth.supported)
      deepStrictEqual(diagnoseBlock(client, client.block(URL))?.problems, [], `${client.id} oauth`);
  }
});

test('each problem is named, and the repair keeps URL, key and the fields the user added', () => {
  const headers = { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' };
  deepStrictEqual(codes('claude-code', { url: URL, headers }), ['wrong-shape']);
  deepStrictEqual(
    codes('cursor', { url: URL, headers: { Authorization: KEY, 'User-Agent': 'cairn-mcp-installer/1.0' } }),
    ['missing-bearer'],
  );
  deepStrictEqual(codes('kiro', { url: URL, headers: { Authorization: `Bearer ${KEY}` } }), ['missing-user-agent']);
  deepStrictEqual(codes('windsurf', { url: URL, headers }), ['wrong-shape']);
  deepStrictEqual(codes('cursor', { url: URL, headers: { API_KEY: KEY } }), ['legacy']);
  // Kiro signs in with OAuth when the server accepts its local callback (the default): a url-only entry is no problem.
  deepStrictEqual(codes('kiro', { url: URL }), []);
  deepStrictEqual(codes('claude-desktop', { url: URL, headers }), ['wrong-shape']);
  deepStrictEqual(
    codes('cursor', { url: URL, headers: { Authorization: 'Bearer ', 'User-Agent': 'cairn-mcp-installer/1.0' } }),
    ['missing-key'],
  );
  const repaired = diagnoseBlock(CLIENTS['claude-code'], {
    url: URL,
    headers: { ...headers, 'X-Team': 'a' },
    timeout: 5,
  })?.repaired;
  deepStrictEqual(repaired, { type: 'http', url: URL, headers: { ...headers, 'X-Team': 'a' }, timeout: 5 });
  deepStrictEqual(diagnoseBlock(CLIENTS['claude-desktop'], { url: URL, headers })?.repaired, bridgeBlock(URL, KEY));
});

test('bridge problems: env name vs ${…} reference, spaces in header args, no User-Agent, no Bearer', () => {
  const good = bridgeBlock(URL, KEY) as { command: string; args: string[]; env: Record<string, string> };
  deepStrictEqual(codes('claude-desktop', { ...good, env: { AUTH_TOKEN: `Bearer ${KEY}` } }), ['bridge-env-mismatch']);
  deepStrictEqual(
    codes('claude-desktop', { ...good, args: good.args.map((a) => a.replace(/^(Authorization|User-Agent):/, '$1: ')) }),
    ['bridge-header-space'],
  );
  deepStrictEqual(codes('claude-desktop', { ...good, args: good.args.slice(0, -2) }), ['missing-user-agent']);
  deepStrictEqual(codes('claude-desktop', { ...good, env: { AUTH_HEADER: KEY } }), ['missing-bearer']);
  deepStrictEqual(
    diagnoseBlock(CLIENTS['claude-desktop'], { ...good, env: { AUTH_TOKEN: `Bearer ${KEY}` } })?.repaired,
    good,
  );
  equal(diagnoseBlock(CLIENTS['claude-desktop'], { ...good, env: {} })?.repaired, undefined, 'no key to rebuild with');
});

test('looksLikeCairn: by name, by key, by User-Agent', () => {
  ok(looksLikeCairn('cairn-work', {}));
  ok(looksLikeCairn('notes', { headers: { Authorization: `Bearer ${KEY}` } }));
  ok(!looksLikeCairn('github', { url: 'https://api.github.com/mcp' }));
});

test('an address without a scheme is a problem of its own, never rebuilt by guessing (direct and bridge)', () => {
  const noScheme = 'cairn.example.com/mcp';
  deepStrictEqual(
    codes('cursor', {
      url: noScheme,
      headers: { Authorization: `Bearer ${KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' },
    }),
    ['bad-url'],
  );
  const bridge = bridgeBlock(URL, KEY) as { args: string[] };
  const diagnosis = diagnoseBlock(CLIENTS['claude-desktop'], {
    ...bridge,
    args: bridge.args.map((a) => (a === URL ? noScheme : a)),
  });
  deepStrictEqual(
    diagnosis?.problems.map((p) => p.code),
    ['bad-url'],
  );
  equal(diagnosis?.repaired, undefined);
});

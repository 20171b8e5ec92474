import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../log/logger.js';
import type { ClientCredential } from '../store/types.js';
import { ClientNames, clientLabel } from './client-names.js';

const META = 'io.modelcontextprotocol/clientInfo';

test('a client is named from initialize (2025 era) and from any request’s _meta clientInfo (2026-07-28), title first', () => {
  assert.equal(
    clientLabel({
      method: 'initialize',
      params: { clientInfo: { name: 'cursor-vscode', title: 'Cursor', version: '1.7.2' } },
    }),
    'Cursor 1.7.2',
  );
  assert.equal(
    clientLabel({
      method: 'server/discover',
      params: { _meta: { [META]: { name: 'claude-code', title: 'Claude Code', version: '2.1.330' } } },
    }),
    'Claude Code 2.1.330',
  );
  assert.equal(
    clientLabel({
      method: 'tools/call',
      params: { name: 'search', _meta: { [META]: { name: 'claude-code', version: '2.1.330' } } },
    }),
    'claude-code 2.1.330',
  );
  assert.equal(
    clientLabel([
      { method: 'tools/list', params: {} },
      { method: 'tools/call', params: { _meta: { [META]: { name: 'x', version: '1' } } } },
    ]),
    'x 1',
    'a batch: the first that names one',
  );
  for (const nameless of [
    { method: 'tools/call', params: { name: 'search' } },
    { method: 'tools/call', params: { _meta: { [META]: 'Claude Code' } } },
    { method: 'initialize', params: { _meta: { [META]: { name: 'not-here' } }, clientInfo: null } },
    { method: 'tools/list' },
    null,
    'initialize',
    [],
  ]) {
    assert.equal(clientLabel(nameless), undefined, JSON.stringify(nameless));
  }
});

test('a hostile name in _meta is tamed as in initialize: no control, NUL or direction characters, at most 80 characters', () => {
  const label =
    clientLabel({
      method: 'tools/list',
      params: { _meta: { [META]: { name: `Evil\u0000\u202e\n${'y'.repeat(200)}`, version: '\u0007' } } },
    }) ?? '';
  assert.ok(label.startsWith('Evil y'), label);
  assert.ok(label.length <= 80);
  assert.ok(![...label].some((ch) => ch.codePointAt(0)! < 0x20 || ch === '\u202e'), JSON.stringify(label));
});

test('names are written when new, read back by an instance that has not seen them, and re-read once they are a minute old', async () => {
  const kept = new Map<string, string>();
  const calls: string[] = [];
  const id = (c: ClientCredential) => ('keyId' in c ? c.keyId : `${c.userId}/${c.oauthClientId}`);
  const store = {
    rememberClientName: async (c: ClientCredential, name: string) => {
      calls.push(`write ${name}`);
      kept.set(id(c), name);
    },
    clientNameOf: async (c: ClientCredential) => {
      calls.push('read');
      return kept.get(id(c));
    },
  };
  let now = 0;
  const log = createLogger('silent');
  const a = new ClientNames(store, log, () => now);
  const b = new ClientNames(store, log, () => now);
  const key = { keyId: 'key_1' };
  assert.equal(await a.of(key, 'Cursor 1.7.2'), 'Cursor 1.7.2');
  assert.equal(await a.of(key, 'Cursor 1.7.2'), 'Cursor 1.7.2');
  assert.equal(await a.of(key, undefined), 'Cursor 1.7.2');
  assert.deepEqual(calls, ['write Cursor 1.7.2'], 'one write, no read, on the instance that saw it');
  assert.equal(await b.of(key, undefined), 'Cursor 1.7.2', 'the other instance reads it back');
  assert.equal(await b.of(key, undefined), 'Cursor 1.7.2');
  assert.deepEqual(calls, ['write Cursor 1.7.2', 'read']);
  await a.of(key, 'Claude Code 2.1.330');
  assert.equal(await b.of(key, undefined), 'Cursor 1.7.2', 'trusted for a minute');
  now += 61_000;
  assert.equal(await b.of(key, undefined), 'Claude Code 2.1.330', 'then read again');
  assert.equal(await b.of('session:u_1', 'Portal 1'), 'Portal 1');
  assert.equal(
    calls.filter((c) => c.startsWith('write')).length,
    2,
    'a credential that is neither key nor grant stays in memory',
  );
});

test('a database that cannot keep or read the name does not fail the call', async () => {
  const down = async () => {
    throw new Error('connect ECONNREFUSED');
  };
  const names = new ClientNames({ rememberClientName: down, clientNameOf: down }, createLogger('silent'));
  assert.equal(await names.of({ keyId: 'k' }, 'Cursor 1.7.2'), 'Cursor 1.7.2');
  assert.equal(
    await new ClientNames({ rememberClientName: down, clientNameOf: down }, createLogger('silent')).of(
      { keyId: 'k' },
      undefined,
    ),
    undefined,
  );
});

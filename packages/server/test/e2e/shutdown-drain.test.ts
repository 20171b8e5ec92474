// Shutdown closes the database only after the requests being handled have answered, even those
// whose client already left: they used to find "driver has already been destroyed".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INSTALLER_USER_AGENT } from '@cairn/contract';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createTenant } from '../../src/testing/tenants.js';
import { startTestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

test('a search still running when its client leaves and the server shuts down finishes on an open database', async () => {
  let entered!: () => void;
  const searching = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let finished: 'ok' | Error | undefined;
  const server = await startTestCairn({
    wrapStore: (store: KyselyStore) => {
      const original = store.rankedEntries.bind(store);
      store.rankedEntries = async (query) => {
        entered();
        await gate;
        try {
          const hits = await original(query);
          finished = 'ok';
          return hits;
        } catch (error) {
          finished = error as Error;
          throw error;
        }
      };
      return store;
    },
  });
  const tenant = await createTenant(server.cairn);
  const client = new AbortController();
  const request = fetch(server.mcpUrl, {
    method: 'POST',
    signal: client.signal,
    headers: {
      authorization: `Bearer ${tenant.owner.key}`,
      'user-agent': INSTALLER_USER_AGENT,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'deploy' } },
    }),
  }).catch(() => 'aborted');
  await searching;
  client.abort();
  assert.equal(await request, 'aborted');
  let closed = false;
  const closing = server.close().then(() => {
    closed = true;
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(closed, false, 'the database must stay open while a request is being handled');
  release();
  await closing;
  assert.equal(
    finished,
    'ok',
    `the search ran on a closed database: ${finished instanceof Error ? finished.message : finished}`,
  );
  assert.ok(!server.logs.some((line) => line.includes('tool failed')), server.logs.join('\n'));
});

// Overload is shed, honestly: beyond the instance's bound on work in progress a request is answered
// 503 "busy" with Retry-After at once, while the probes keep answering (docs/overload.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { SearchGate } from '../../src/testing/search-gate.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const gate = new SearchGate();
let server: TestCairn;
let tenant: TestTenant;
let client: Client;

before(async () => {
  server = await startTestCairn({
    // One request at a time and no queue: the second is beyond capacity. The queue's wait is long, so a
    // quick 503 can only be the immediate refusal. The per-key limit stays out of the way.
    env: {
      CAIRN_MAX_CONCURRENT_REQUESTS: '1',
      CAIRN_MAX_QUEUED_REQUESTS: '0',
      CAIRN_MAX_QUEUE_WAIT_MS: '10000',
      CAIRN_REQUESTS_PER_MINUTE: '100000',
    },
    wrapStore: (store) => gate.wrap(store),
  });
  tenant = await createTenant(server.cairn);
  client = await connectMcpClient(server.mcpUrl, tenant.owner.key);
});
after(async () => {
  gate.reopen();
  await client?.close();
  await server?.close();
});

/** Until the requests an earlier step started (the SDK client's notifications among them) have all answered. */
async function idle(): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    const { running, queued } = server.cairn.admission.load;
    if (running === 0 && queued === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.fail(`requests still running: ${JSON.stringify(server.cairn.admission.load)}`);
}

/** A search over /mcp that waits at the gate while it is closed (raw: the SDK client would open a side stream too). */
function heldSearch(): Promise<Response> {
  return fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${tenant.owner.key}`,
      'User-Agent': INSTALLER_USER_AGENT,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'deploy' } },
    }),
  });
}

/**
 * A search holding the instance's one turn, waiting at the closed gate. Retried when something of the
 * SDK client's (a notification, its side stream) still had the turn and the search was refused instead.
 */
async function holdTheOnlyTurn(): Promise<{ held: Promise<Response> }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    await idle();
    gate.close();
    const waiting = gate.waiting();
    const held = heldSearch();
    if ((await Promise.race([waiting.then(() => 'held' as const), held.then(() => 'answered' as const)])) === 'held')
      return { held };
    gate.reopen();
    await (await held).text();
  }
  assert.fail('the search never got the turn');
}

const timed = async <T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
};

describe('beyond the bound on work in progress', () => {
  test('/mcp (through the MCP SDK client and raw) and /api/v1 answer 503 busy with Retry-After at once, while /healthz, /readyz and discovery answer 200', async () => {
    const { held } = await holdTheOnlyTurn();
    try {
      // The official SDK client surfaces the 503 as an error carrying the busy message.
      const sdk = await timed(() =>
        connectMcpClient(server.mcpUrl, tenant.member.key).then(
          (c) => c.close(),
          (error: Error & { data?: { status?: number } }) => error,
        ),
      );
      assert.ok(sdk.value instanceof Error, 'the connection was refused');
      assert.equal(sdk.value.data?.status, 503);
      assert.match(
        sdk.value.message,
        /Cairn is busy \(too many requests are in progress or waiting on this instance\); retry in \d+ s/,
      );
      assert.doesNotMatch(sdk.value.message, /cannot reach its database/);

      const raw = await timed(() =>
        fetch(server.mcpUrl, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${tenant.member.key}`,
            'User-Agent': INSTALLER_USER_AGENT,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 'call-7', method: 'tools/list', params: {} }),
        }),
      );
      assert.equal(raw.value.status, 503);
      const retryAfter = Number(raw.value.headers.get('retry-after'));
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 30,
        `Retry-After ${raw.value.headers.get('retry-after')}`,
      );
      const message = (await raw.value.json()) as {
        id: unknown;
        error: { code: number; message: string; data: { retryAfterSeconds: number } };
      };
      // Refused before its body was read (a refusal must cost next to nothing), so its id is unknown: null, as JSON-RPC says.
      assert.equal(message.id, null);
      assert.equal(message.error.code, -32054);
      assert.equal(message.error.data.retryAfterSeconds, retryAfter);
      assert.match(message.error.message, new RegExp(`busy .*retry in ${retryAfter} s`));

      const api = await timed(() =>
        fetch(`${server.baseUrl}/api/v1/datapacks`, { headers: { Authorization: `Bearer ${tenant.owner.key}` } }),
      );
      assert.equal(api.value.status, 503);
      assert.ok(Number(api.value.headers.get('retry-after')) >= 1);
      const body = (await api.value.json()) as {
        error: { code: string; message: string; retryAfterSeconds: number; retryAt: string };
      };
      assert.equal(body.error.code, 'busy');
      assert.match(body.error.message, /^Cairn is busy .*; retry in \d+ s\. The database is fine; nothing was done\.$/);
      assert.ok(Date.parse(body.error.retryAt) > Date.now(), body.error.retryAt);

      // Refused at once: the queue would have made them wait up to 10 s.
      for (const [what, ms] of [
        ['sdk', sdk.ms],
        ['raw', raw.ms],
        ['api', api.ms],
      ] as const) {
        assert.ok(ms < 2_000, `${what} refused after ${Math.round(ms)} ms`);
      }

      for (const path of ['/healthz', '/readyz', '/.well-known/oauth-protected-resource']) {
        const probe = await timed(() => fetch(`${server.baseUrl}${path}`));
        assert.equal(probe.value.status, 200, `${path} is answered ahead of the queue`);
        assert.ok(probe.ms < 2_000, `${path} took ${Math.round(probe.ms)} ms`);
      }
    } finally {
      gate.reopen();
    }
    assert.equal((await held).status, 200, 'the held request finished normally');
    // The bound frees with the answer: the next request is let in.
    assert.ok(Array.isArray((await callTool(client, 'list_datapacks')).datapacks));
    assert.ok(
      server.logs.some((line) => line.includes('busy: refusing requests')),
      'the operator is told once',
    );
    assert.ok(!server.logs.some((line) => line.includes('database unreachable')), 'load is never logged as an outage');
  });

  test('a refused request did nothing: a save refused busy is not stored', async () => {
    const { held } = await holdTheOnlyTurn();
    let status: number;
    try {
      const res = await fetch(`${server.baseUrl}/api/v1/entries`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tenant.owner.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Refused while busy', content: 'zanzibar quokka refused while busy' }),
      });
      status = res.status;
    } finally {
      gate.reopen();
    }
    await held;
    assert.equal(status, 503);
    const { results } = await callTool(client, 'search', { query: 'zanzibar quokka' });
    assert.deepEqual(results, []);
  });
});

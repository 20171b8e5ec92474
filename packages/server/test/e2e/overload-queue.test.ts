// A queue full of slow requests does not hold up what the instance refuses or the probes: a freed turn
// goes to the next waiting request on a later turn of the event loop, so the answers, refusals and
// probes already read are served first instead of after every queued request's synchronous work
// (docs/overload.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { SearchGate } from '../../src/testing/search-gate.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

/** Each queued search holds the event loop this long, as a search over a large pool on SQLite does. */
const BURN_MS = 150;
const QUEUED = 8;
/** Requests sent once the queue is full and the searches start. */
const EXTRA = 3;

const gate = new SearchGate();
let server: TestCairn;
let tenant: TestTenant;

before(async () => {
  server = await startTestCairn({
    // One at a time; one key's line holds 64 / 8 = 8 waiting, so its next request is refused as full.
    env: {
      CAIRN_MAX_CONCURRENT_REQUESTS: '1',
      CAIRN_MAX_QUEUED_REQUESTS: '64',
      CAIRN_MAX_QUEUE_WAIT_MS: '10000',
      CAIRN_REQUESTS_PER_MINUTE: '100000',
    },
    wrapStore: (store) => gate.wrap(store),
  });
  tenant = await createTenant(server.cairn);
});
after(async () => {
  gate.reopen();
  await server?.close();
});

function search(): Promise<Response> {
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

async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.ok(done(), what);
}

test('with the queue full of slow searches, a refusal and /healthz are answered within a search or two, not after the whole queue', async () => {
  // Known credential first (one answered request), so its requests share one line of the queue.
  assert.equal((await search()).status, 200);
  gate.close();
  const held = gate.waiting();
  const searches = [search()];
  await held;
  for (let i = 0; i < QUEUED; i++) searches.push(search());
  await until(
    () => server.cairn.admission.load.queued === QUEUED,
    `${QUEUED} searches wait: ${JSON.stringify(server.cairn.admission.load)}`,
  );
  const passedBefore = gate.passed;
  gate.burnMs = BURN_MS;
  const started = performance.now();
  const answered = <T extends { status: number }>(res: T) => ({
    res,
    ms: performance.now() - started,
    passed: gate.passed - passedBefore,
  });
  // More than the line has room for while the first searches run: the line is full again when they arrive.
  const extra = Array.from({ length: EXTRA }, () =>
    search().then(async (res) => ({ ...answered(res), body: await res.text() })),
  );
  const probe = fetch(`${server.baseUrl}/healthz`).then(answered);
  gate.reopen();
  try {
    const extras = await Promise.all(extra);
    const refused = extras.filter((e) => e.res.status === 503);
    assert.ok(
      refused.length >= 1,
      `statuses ${extras.map((e) => `${e.res.status} after ${e.passed} searches`).join(', ')}`,
    );
    for (const r of refused) {
      assert.ok(Number(r.res.headers.get('retry-after')) >= 1);
      assert.match(r.body, /-32054.*Cairn is busy \(too many requests are in progress or waiting/);
    }
    const p = await probe;
    assert.equal(p.res.status, 200);
    // The queue's searches hold the event loop 150 ms each, over a second in all; these answers come after at most a few.
    for (const [what, answer] of [...refused.map((r) => ['a refusal', r] as const), ['/healthz', p] as const]) {
      assert.ok(answer.passed <= 3, `${what} was answered after ${answer.passed} of the slow searches`);
      assert.ok(answer.ms < 1_000, `${what} took ${Math.round(answer.ms)} ms`);
    }
  } finally {
    gate.burnMs = 0;
  }
  for (const res of await Promise.all(searches)) assert.equal(res.status, 200);
});

// SQLite only (listed in test/parity/backend-parity.test.ts): another process's write lock on the file is SQLite's.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** Another process (node with better-sqlite3, as `cairn import` or a script would be) holding `BEGIN IMMEDIATE` on the file until told to let go. */
async function holdWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const script = `
    const db = new (require(${JSON.stringify(BETTER_SQLITE3)}))(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.stdout.write('released\\n'); process.exit(0); });`;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', script], { stdio: 'pipe' });
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c;
        if (out.includes(word)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before saying ${word}`)));
    });
  await said('locked');
  return {
    async release() {
      const released = said('released');
      child.stdin.end('go\n');
      await released;
    },
  };
}

/** Asks /healthz every 20 ms until stopped; the slowest answer is what a load balancer would have seen. */
function probeHealth(baseUrl: string): { stop(): Promise<{ probes: number; slowestMs: number; failed: number }> } {
  let running = true;
  let probes = 0;
  let failed = 0;
  let slowestMs = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const ok = await fetch(`${baseUrl}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      slowestMs = Math.max(slowestMs, performance.now() - started);
      probes += 1;
      if (!ok) failed += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { probes, slowestMs, failed };
    },
  };
}

const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
};

describe('SQLite: another process holds the write lock on the database file', () => {
  let server: TestCairn;
  let tenant: TestTenant;
  let file: string;

  before(async () => {
    server = await startTestCairn({ env: { CAIRN_REQUESTS_PER_MINUTE: '100000' } });
    assert.equal(server.cairn.store.dialect, 'sqlite');
    tenant = await createTenant(server.cairn);
    file = join(server.cairn.config.dataDir, 'cairn.db');
  });
  after(async () => {
    await server?.close();
  });

  test('writes answer 503 busy with Retry-After within a second, reads and /healthz keep answering, and writes succeed once it is released', async (t) => {
    const key = tenant.owner.key;
    const mcp = await connectMcpClient(server.mcpUrl, key);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
    const entry = (title: string) => ({
      kind: 'note',
      title,
      content: `${title}: written while another process may hold the SQLite write lock.`,
    });
    await callTool(mcp, 'save_entry', entry('Before the lock'));
    // The first fetch of a process sets up its HTTP client (about 100 ms here): not the server's time.
    assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);

    const health = probeHealth(server.baseUrl);
    const lock = await holdWriteLock(file);
    let mcpWrite: { value: Error & { data?: { status?: number } }; ms: number };
    let apiWrite: { value: Response; ms: number };
    try {
      mcpWrite = await timed(() =>
        callTool(mcp, 'save_entry', entry('During the lock, by MCP')).then(
          () => assert.fail('saved under the lock'),
          (e: Error) => e,
        ),
      );
      apiWrite = await timed(() =>
        api('/api/v1/entries', { method: 'POST', body: JSON.stringify(entry('During the lock, by the JSON API')) }),
      );
      const read = await timed(() => callTool<{ results: unknown[] }>(mcp, 'search', { query: 'before the lock' }));
      assert.ok(read.value.results.length >= 1, 'a search reads while the lock is held');
      assert.ok(read.ms < 1_000, `the search took ${read.ms} ms`);
      assert.equal((await api('/api/v1/datapacks')).status, 200, 'a JSON API read answers');
    } finally {
      await lock.release();
    }
    const healthDuring = await health.stop();
    t.diagnostic(
      `MCP write ${mcpWrite.ms.toFixed(0)} ms, JSON API write ${apiWrite.ms.toFixed(0)} ms; /healthz: ${healthDuring.probes} probes, slowest ${healthDuring.slowestMs.toFixed(0)} ms`,
    );

    assert.equal(mcpWrite.value.data?.status, 503, mcpWrite.value.message);
    assert.match(
      mcpWrite.value.message,
      /-32054.*Cairn is busy \(another process .*holds the write lock of its SQLite database\); retry in 1 s/,
    );
    assert.ok(mcpWrite.ms < 1_500, `the MCP write was answered after ${mcpWrite.ms} ms`);
    assert.equal(apiWrite.value.status, 503);
    assert.equal(apiWrite.value.headers.get('retry-after'), '1');
    const body = (await apiWrite.value.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'busy');
    assert.match(body.error.message, /SQLite database.*retry in 1 s/);
    assert.ok(apiWrite.ms < 1_500, `the JSON API write was answered after ${apiWrite.ms} ms`);
    assert.equal(healthDuring.failed, 0);
    assert.ok(healthDuring.probes >= 20, `only ${healthDuring.probes} probes`);
    // Waiting on the lock on the event loop took 5 s (busy_timeout); now nothing waits there.
    assert.ok(healthDuring.slowestMs < 100, `/healthz took ${healthDuring.slowestMs} ms while the lock was held`);

    // Released: both write paths work again, and nothing written under the lock was half-stored.
    await callTool(mcp, 'save_entry', entry('After the lock, by MCP'));
    assert.equal(
      (await api('/api/v1/entries', { method: 'POST', body: JSON.stringify(entry('After the lock, by the JSON API')) }))
        .status,
      201,
    );
    const titles = (
      await callTool<{ results: { entry: { title: string } }[] }>(mcp, 'search', { query: 'lock', limit: 20 })
    ).results.map((r) => r.entry.title);
    assert.ok(
      titles.includes('After the lock, by MCP') && titles.includes('After the lock, by the JSON API'),
      titles.join(', '),
    );
    assert.ok(!titles.some((title) => title.startsWith('During the lock')), titles.join(', '));
    await mcp.close();
    assert.ok(
      !server.logs.some((line) => line.includes('request failed') || line.includes('tool failed')),
      server.logs.join('\n'),
    );
  });

  test('a lock released within the wait is waited out: the write succeeds', async () => {
    const mcp = await connectMcpClient(server.mcpUrl, tenant.member.key);
    const lock = await holdWriteLock(file);
    const write = callTool(mcp, 'save_entry', {
      kind: 'note',
      title: 'Waited for a short lock',
      content: 'Saved once the other process committed.',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await lock.release();
    assert.equal((await write).status, 'created');
    await mcp.close();
  });
});

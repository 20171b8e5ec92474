// A PostgreSQL pool whose connections are all in use while the database answers is "busy", never
// "cannot reach its database"; a database that really does not answer stays unreachable.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/errors/database-unavailable.js';
import { isServerBusy } from '../../src/errors/server-busy.js';
import { openPostgresPool, PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { postgresTestUrl } from '../../src/testing/postgres.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const target = postgresTestUrl();
if ('skip' in target) console.log(`# PostgreSQL pool tests skipped: ${target.skip}`);

describe('PostgreSQL: every pooled connection held by a long transaction (a pool of 2)', {
  skip: 'skip' in target ? target.skip : undefined,
}, () => {
  let server: TestCairn;
  let tenant: TestTenant;
  let held: pg.PoolClient[] = [];
  const pool = () => (server.cairn.store as PostgresStore).pool;

  before(async () => {
    server = await startTestCairn({
      postgresServerUrl: 'url' in target ? target.url : '',
      env: {
        CAIRN_DATABASE_POOL_SIZE: '2',
        CAIRN_DATABASE_CONNECT_TIMEOUT_MS: '300',
        CAIRN_REQUESTS_PER_MINUTE: '100000',
      },
    });
    tenant = await createTenant(server.cairn);
  });
  after(async () => {
    for (const client of held) client.release();
    await server?.close();
  });

  /** Takes every pooled connection into a transaction sleeping in the database, until released. */
  async function holdThePool(): Promise<{ release(): Promise<void> }> {
    const clients = [await pool().connect(), await pool().connect()];
    held = clients;
    const sleeping = clients.map(async (client) => {
      await client.query('BEGIN');
      await client.query('SELECT pg_sleep(30)').catch(() => {});
    });
    return {
      async release() {
        const admin = new pg.Client({ connectionString: server.cairn.config.databaseUrl });
        await admin.connect();
        try {
          // Cancels the sleeps from outside (the held connections are busy with them), once both have begun.
          const pids = clients.map((c) => (c as unknown as { processID: number }).processID);
          for (let i = 0; ; i++) {
            const { rows } = await admin.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1) AND state = 'active' AND query = 'SELECT pg_sleep(30)'",
              [pids],
            );
            if (rows[0]!.n === clients.length) break;
            assert.ok(i < 1_000, 'the held connections never started sleeping');
          }
          await admin.query('SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)', [pids]);
        } finally {
          await admin.end();
        }
        await Promise.all(sleeping);
        for (const client of clients) {
          await client.query('ROLLBACK');
          client.release();
        }
        held = [];
      },
    };
  }

  test('requests get 503 busy with Retry-After, /readyz stays ready, and no outage is logged', async () => {
    const mcp = await connectMcpClient(server.mcpUrl, tenant.owner.key);
    const hold = await holdThePool();
    try {
      await assert.rejects(
        callTool(mcp, 'search', { query: 'anything' }),
        (error: Error & { data?: { status?: number } }) => {
          assert.equal(error.data?.status, 503, error.message);
          assert.match(
            error.message,
            /-32054.*Cairn is busy \(all its database connections are in use\); retry in 2 s/,
          );
          assert.doesNotMatch(error.message, /cannot reach its database/);
          return true;
        },
      );
      const api = await fetch(`${server.baseUrl}/api/v1/datapacks`, {
        headers: { Authorization: `Bearer ${tenant.owner.key}` },
      });
      assert.equal(api.status, 503);
      assert.equal(api.headers.get('retry-after'), '2');
      assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'busy');
      const ready = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 200, 'readiness asks on its own connection: an exhausted pool is not an outage');
      assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
    } finally {
      await hold.release();
    }
    assert.ok(
      Array.isArray((await callTool(mcp, 'list_datapacks')).datapacks),
      'served again once a connection is free',
    );
    await mcp.close();
    assert.ok(
      !server.logs.some((line) => line.includes('database unreachable')),
      server.logs.filter((l) => l.includes('unreachable')).join('\n'),
    );
  });

  test('a tool whose own query meets the exhausted pool is answered 503 busy, not a tool error', async () => {
    const mcp = await connectMcpClient(server.mcpUrl, tenant.member.key);
    // Past the credential check (which reads the database) the search waits here while the pool is taken.
    let reached!: () => void;
    const atSearch = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let proceed!: () => void;
    const go = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    const store = server.cairn.store;
    const original = store.rankedEntries.bind(store);
    store.rankedEntries = async (query) => {
      reached();
      await go;
      return original(query);
    };
    try {
      const call = callTool(mcp, 'search', { query: 'anything' }).then(
        () => undefined,
        (error: Error) => error,
      );
      await atSearch;
      const hold = await holdThePool();
      try {
        proceed();
        const error = (await call) as (Error & { data?: { status?: number } }) | undefined;
        assert.ok(error, 'the call was refused');
        assert.equal(error.data?.status, 503, error.message);
        assert.match(error.message, /-32054.*busy/);
      } finally {
        await hold.release();
      }
    } finally {
      store.rankedEntries = original;
      await mcp.close();
    }
  });
});

describe('PostgreSQL that accepts connections and never answers (a partition): still unreachable, not busy', () => {
  let blackhole: Server;
  const sockets = new Set<Socket>();
  let port: number;

  before(async () => {
    blackhole = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    port = (blackhole.address() as { port: number }).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => blackhole.close(resolve));
  });

  test('queries waiting behind a connection that cannot be made, and the one making it, all read as unreachable', async () => {
    const store = new PostgresStore(
      openPostgresPool(`postgres://cairn@127.0.0.1:${port}/cairn`, { size: 1, connectTimeoutMs: 300 }),
    );
    try {
      const failures = await Promise.all(
        [1, 2, 3].map(() =>
          store.getUser('nobody').then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
      );
      for (const error of failures) {
        assert.ok(error, 'the query failed');
        assert.equal(isServerBusy(error), false, `not busy: ${(error as Error).message}`);
        assert.equal(isDatabaseUnavailable(error), true, `unreachable: ${(error as Error).message}`);
      }
      assert.ok(
        failures.some((e) => (e as Error).message === 'timeout exceeded when trying to connect'),
        'a query waited for the pool (the case that could be mistaken for load)',
      );
      await assert.rejects(store.ping(), (error) => isDatabaseUnavailable(error));
    } finally {
      await store.close().catch(() => {});
    }
  });
});

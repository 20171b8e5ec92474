import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/errors/database-unavailable.js';
import { type CairnProcess, startCairnProcess } from '../../src/testing/cairn-process.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { createTestDatabase, postgresTestUrl } from '../../src/testing/postgres.js';
import { type PrivatePostgres, startPrivatePostgres } from '../../src/testing/private-postgres.js';
import { createTenant } from '../../src/testing/tenants.js';
import { freePort, startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';
import { assertExactlyOnce, getJson, mcpCall, provision, sleep, Traffic, waitFor } from './outage-traffic.fixture.js';

const target = postgresTestUrl();
if ('skip' in target) console.log(`# PostgreSQL outage tests skipped: ${target.skip}`);

describe("PostgreSQL: pg_terminate_backend on all of Cairn's connections, repeatedly, during writes and searches", {
  skip: 'skip' in target ? target.skip : undefined,
}, () => {
  const serverUrl = 'url' in target ? target.url : '';
  let database: { url: string; drop(): Promise<void> };
  let dataDir: string;
  let key: string;
  let server: CairnProcess;

  before(async () => {
    database = await createTestDatabase(serverUrl);
    dataDir = mkdtempSync(join(tmpdir(), 'cairn-outage-'));
    ({ key } = await provision(database.url, dataDir));
    // A load test from one key: the per-key request limit (600 a minute) must not answer before the outage does.
    server = await startCairnProcess(
      { DATABASE_URL: database.url, CAIRN_DATA_DIR: dataDir, CAIRN_REQUESTS_PER_MINUTE: '1000000' },
      await freePort(),
    );
  });
  after(async () => {
    await server?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the process stays up, clients see success or a 503 to retry, and every acknowledged write is stored once', async (t) => {
    const dbName = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const traffic = new Traffic(server.baseUrl, key, `kill${randomBytes(3).toString('hex')}`);
    let terminated = 0;
    try {
      traffic.start(3);
      await sleep(1_000);
      for (let round = 0; round < 15; round++) {
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [dbName],
        );
        terminated += rows[0]!.n;
        assert.equal(server.exited(), undefined, `cairn exited after round ${round}:\n${server.output()}`);
        await sleep(300);
      }
      await sleep(1_000);
    } finally {
      await traffic.stop();
      await admin.end();
    }
    t.diagnostic(
      `terminated ${terminated} connections; answers ${JSON.stringify(Object.fromEntries(traffic.statuses))}; ${traffic.acked.size} writes acknowledged`,
    );
    assert.equal(server.exited(), undefined, `cairn exited:\n${server.output()}`);
    assert.deepEqual(traffic.violations, [], `clients saw:\n${traffic.violations.join('\n')}`);
    assert.ok(terminated >= 15, `Cairn's connections were terminated (${terminated})`);
    // Killing a connection in the middle of a query is what makes a request fail; it must have happened.
    assert.ok(
      traffic.count('write 503') + traffic.count('mcp 503') > 0,
      `some requests met a dropped connection: ${JSON.stringify([...traffic.statuses])}`,
    );
    assert.ok(traffic.acked.size >= 20, `writes went on being acknowledged (${traffic.acked.size})`);
    assert.match(server.output(), /database unreachable/, 'the outage is logged');
    assert.ok(!server.output().includes(database.url), 'the log never shows the connection string');
    await assertExactlyOnce(database.url, traffic);

    // Recovered by itself: a fresh MCP SDK client finds what was written, without a restart.
    const client = await connectMcpClient(`${server.baseUrl}/mcp`, key);
    try {
      const [content, id] = [...traffic.acked].at(-1)!;
      const found = await callTool<{ results: { entry: { id: string } }[] }>(client, 'search', {
        query: content.split(' ').at(-1)!,
      });
      assert.deepEqual(
        found.results.map((r) => r.entry.id),
        [id],
      );
    } finally {
      await client.close();
    }
    assert.deepEqual((await getJson(`${server.baseUrl}/readyz`)).body, { status: 'ready' });
  });
});

describe('PostgreSQL: a full restart of the database server during a stream of writes', {
  skip: 'skip' in target ? target.skip : undefined,
}, () => {
  let postgres: PrivatePostgres | undefined;
  let dataDir: string;
  let key: string;
  let email: string;
  let server: CairnProcess;

  before(async () => {
    // Our own cluster: the shared server on 5432 must never be restarted.
    postgres = await startPrivatePostgres();
    dataDir = mkdtempSync(join(tmpdir(), 'cairn-outage-'));
    ({ key, email } = await provision(postgres.url, dataDir));
    // A load test from one key: the per-key request limit (600 a minute) must not answer before the outage does.
    server = await startCairnProcess(
      { DATABASE_URL: postgres.url, CAIRN_DATA_DIR: dataDir, CAIRN_REQUESTS_PER_MINUTE: '1000000' },
      await freePort(),
    );
  });
  after(async () => {
    await server?.stop();
    postgres?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('writes get 503 with Retry-After and /readyz says unavailable while it is down, then everything recovers without restarting Cairn', async (t) => {
    const pgServer = postgres!;
    const traffic = new Traffic(server.baseUrl, key, `restart${randomBytes(3).toString('hex')}`);
    traffic.start(2);
    let ackedBeforeRestart: number;
    try {
      const cookie = await signIn(server.baseUrl, email);
      const me = () =>
        fetch(`${server.baseUrl}/api/v1/me`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
      await sleep(1_500);
      assert.deepEqual(await getJson(`${server.baseUrl}/readyz`), {
        status: 200,
        retryAfter: null,
        body: { status: 'ready' },
      });
      pgServer.stop('fast');
      const writes503 = traffic.count('write 503');
      await waitFor(
        '/readyz to say unavailable',
        async () => (await getJson(`${server.baseUrl}/readyz`)).status === 503,
      );
      const ready = await getJson(`${server.baseUrl}/readyz`);
      assert.equal(ready.retryAfter, '3');
      assert.equal(ready.body.status, 'unavailable');
      assert.deepEqual(
        (await getJson(`${server.baseUrl}/healthz`)).body,
        { status: 'ok' },
        'liveness does not depend on the database',
      );
      const mcp = await mcpCall(server.baseUrl, key, 99, 'tools/list', {});
      assert.deepEqual(mcp, { status: 503 }, '/mcp answers a JSON-RPC error with 503');
      // The official SDK client surfaces that as an error saying what happened.
      await assert.rejects(
        connectMcpClient(`${server.baseUrl}/mcp`, key),
        (error: Error & { data?: { status?: number } }) => {
          assert.equal(error.data?.status, 503);
          assert.match(error.message, /database unreachable\); retry in 3 s/);
          return true;
        },
      );
      const signInAnswer = await fetch(`${server.baseUrl}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: server.baseUrl },
        body: JSON.stringify({ email: 'nobody@example.test', password: 'not the password' }),
      });
      assert.equal(
        signInAnswer.status,
        503,
        `better-auth's routes answer 503 too: ${await signInAnswer.clone().text()}`,
      );
      assert.equal(signInAnswer.headers.get('retry-after'), '3');
      assert.equal(((await signInAnswer.json()) as { error: { code: string } }).error.code, 'unavailable');
      // better-auth turns a failed session lookup into its own 500 without the cause; the portal must see 503, not a sign-out.
      const session = await me();
      assert.equal(session.status, 503, `a portal session request answers 503: ${await session.clone().text()}`);
      assert.equal(session.headers.get('retry-after'), '3');
      await waitFor('writes to meet the outage', async () => traffic.count('write 503') > writes503 + 3);
      await sleep(1_500);
      assert.equal(server.exited(), undefined, `cairn exited while the database was down:\n${server.output()}`);
      ackedBeforeRestart = traffic.acked.size;
      pgServer.start();
      await waitFor(
        '/readyz to say ready again',
        async () => (await getJson(`${server.baseUrl}/readyz`)).status === 200,
      );
      await waitFor('writes to be acknowledged again', async () => traffic.acked.size > ackedBeforeRestart + 10);
      assert.equal((await me()).status, 200, 'the portal session outlived the outage');
    } finally {
      await traffic.stop();
    }
    t.diagnostic(
      `answers ${JSON.stringify(Object.fromEntries(traffic.statuses))}; ${traffic.acked.size} writes acknowledged`,
    );
    assert.equal(server.exited(), undefined, `cairn exited:\n${server.output()}`);
    assert.deepEqual(traffic.violations, [], `clients saw:\n${traffic.violations.join('\n')}`);
    assert.equal(
      server.output().match(/database unreachable/g)?.length,
      1,
      `one outage, logged once:\n${server.output()}`,
    );
    assert.match(server.output(), /database reachable again/);
    await assertExactlyOnce(pgServer.url, traffic);
  });
});

/** Runs `work`, retrying for up to 5 s while the database is still unreachable. */
async function onceReachable<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('PostgreSQL: API-key usage written in the background survives an outage', {
  skip: 'skip' in target ? target.skip : undefined,
}, () => {
  let server: TestCairn;
  before(async () => {
    server = await startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' });
  });
  after(async () => {
    await server?.close();
  });

  test('a usage flush that meets the outage fails softly, keeps the usage, and writes it once the database is back', async () => {
    const { cairn } = server;
    const key = (await createTenant(cairn)).owner.key;
    const { record } = (await cairn.keys.verify(key))!;
    cairn.keys.noteUse(record.id, 'outage-probe/1.0');
    const admin = new pg.Client({ connectionString: 'url' in target ? target.url : '' });
    await admin.connect();
    const dbName = new URL(cairn.config.databaseUrl!).pathname.slice(1);
    try {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [dbName],
      );
      await assert.rejects(cairn.keys.flush(), (error) => isDatabaseUnavailable(error));
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    // The pool may still hand out a connection whose termination it has not heard of yet: the first
    // query after an outage can meet it, exactly as a request would (and be answered 503). Retry as a client does.
    assert.equal(
      (await onceReachable(() => cairn.store.getApiKey(record.id)))?.lastUsedClient,
      null,
      'nothing was written during the outage',
    );
    await onceReachable(() => cairn.keys.flush());
    assert.equal(
      (await cairn.store.getApiKey(record.id))?.lastUsedClient,
      'outage-probe/1.0',
      'the usage kept for the next flush is written',
    );
  });
});

describe('SQLite: liveness and readiness', () => {
  let dataDir: string;
  let server: CairnProcess;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cairn-outage-'));
    server = await startCairnProcess({ CAIRN_DATA_DIR: dataDir }, await freePort());
  });
  after(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('/healthz and /readyz answer 200; /readyz says unavailable while the database file is gone', async () => {
    assert.deepEqual(await getJson(`${server.baseUrl}/healthz`), {
      status: 200,
      retryAfter: null,
      body: { status: 'ok' },
    });
    assert.deepEqual(await getJson(`${server.baseUrl}/readyz`), {
      status: 200,
      retryAfter: null,
      body: { status: 'ready' },
    });
    const file = join(dataDir, 'cairn.db');
    renameSync(file, `${file}.away`);
    try {
      await waitFor(
        '/readyz to notice the missing file',
        async () => (await getJson(`${server.baseUrl}/readyz`)).status === 503,
        5_000,
      );
      assert.equal((await getJson(`${server.baseUrl}/healthz`)).status, 200);
    } finally {
      renameSync(`${file}.away`, file);
    }
    await waitFor(
      '/readyz to be ready again',
      async () => (await getJson(`${server.baseUrl}/readyz`)).status === 200,
      5_000,
    );
    assert.equal(server.exited(), undefined);
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { loadConfig } from '../../src/config/load-config.js';
import { isDatabaseUnavailable } from '../../src/errors/database-unavailable.js';
import { openCairn } from '../../src/runtime/open-cairn.js';
import { type CairnProcess, startCairnProcess } from '../../src/testing/cairn-process.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { createTestDatabase, postgresTestUrl } from '../../src/testing/postgres.js';
import { type PrivatePostgres, startPrivatePostgres } from '../../src/testing/private-postgres.js';
import { createTenant } from '../../src/testing/tenants.js';
import { freePort, startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What clients saw during a run: acknowledged writes, answers by status, and anything a client must never see. */
class Traffic {
  readonly acked = new Map<string, string>();
  readonly attempted = new Set<string>();
  readonly statuses = new Map<string, number>();
  readonly violations: string[] = [];
  private running = true;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
    private readonly tag: string,
  ) {}

  count(what: string): number {
    return this.statuses.get(what) ?? 0;
  }

  private see(what: string): void {
    this.statuses.set(what, this.count(what) + 1);
  }

  /** Starts `writers` loops posting distinct entries and one loop searching over /mcp with raw JSON-RPC. */
  start(writers: number): void {
    for (let w = 0; w < writers; w++) this.loops.push(this.writeLoop(w));
    this.loops.push(this.searchLoop());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async writeLoop(w: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      // Random words: no two entries are near-duplicates of each other, so each save creates one.
      const content = `${this.tag} w${w} n${i} ${randomBytes(20).toString('hex')} ${randomBytes(20).toString('hex')}`;
      this.attempted.add(content);
      await this.writeUntilAcked(content);
    }
  }

  /** Retries on 503 as a client following Retry-After would (faster, to keep the test short). */
  private async writeUntilAcked(content: string): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.baseUrl}/api/v1/entries`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ title: `Outage note ${content.slice(-8)}`, content }),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        this.violations.push(`write got no answer: ${(error as Error).message}`);
        return;
      }
      const text = await res.text();
      this.see(`write ${res.status}`);
      if (res.status === 201 || res.status === 200) {
        this.acked.set(content, (JSON.parse(text) as { entry: { id: string } }).entry.id);
        return;
      }
      if (res.status !== 503) {
        this.violations.push(`write answered ${res.status}: ${text.slice(0, 300)}`);
        return;
      }
      const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
      if (res.headers.get('retry-after') !== '3' || body.error?.code !== 'unavailable' || !/database unreachable.*retry in 3 s/.test(body.error.message ?? '')) {
        this.violations.push(`write 503 without Retry-After or the unavailable error: ${res.headers.get('retry-after')} ${text.slice(0, 300)}`);
        return;
      }
      await sleep(150);
    }
    this.violations.push(`write of "${content}" never succeeded`);
  }

  private async searchLoop(): Promise<void> {
    for (let id = 1; this.running; id++) {
      const outcome = await mcpCall(this.baseUrl, this.key, id, 'tools/call', { name: 'search', arguments: { query: this.tag } });
      this.see(`mcp ${outcome.status}`);
      if (outcome.violation) this.violations.push(outcome.violation);
      await sleep(outcome.status === 503 ? 150 : 50);
    }
  }
}

/** One raw JSON-RPC call to /mcp; a violation is anything but a result or a 503 JSON-RPC error with Retry-After. */
async function mcpCall(baseUrl: string, key: string, id: number, method: string, params: unknown): Promise<{ status: number | 'none'; violation?: string }> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'User-Agent': INSTALLER_USER_AGENT, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { status: 'none', violation: `mcp got no answer: ${(error as Error).message}` };
  }
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? (text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .at(-1) ?? '')
    : text;
  let message: { id?: unknown; result?: { isError?: boolean; content?: unknown }; error?: { code?: number; message?: string } };
  try {
    message = JSON.parse(json);
  } catch {
    return { status: res.status, violation: `mcp answered ${res.status} with no JSON-RPC message: ${text.slice(0, 300)}` };
  }
  if (res.status === 200 && message.id === id && message.result && !message.result.isError) return { status: 200 };
  if (res.status === 503 && message.id === id && message.error?.code === -32053 && res.headers.get('retry-after') === '3' && /database unreachable/.test(message.error.message ?? '')) {
    return { status: 503 };
  }
  return { status: res.status, violation: `mcp answered ${res.status}: ${text.slice(0, 300)}` };
}

/** A user and API key on the database, made in-process before the server starts (as the CLI would). */
async function provision(databaseUrl: string, dataDir: string): Promise<{ email: string; key: string }> {
  const cairn = await openCairn(loadConfig({ DATABASE_URL: databaseUrl, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'silent' }));
  try {
    const { owner } = await createTenant(cairn);
    return { email: owner.email, key: owner.key };
  } finally {
    await cairn.close();
  }
}

/** Every acknowledged write is stored exactly once, under the id it was acknowledged with; no attempt is stored twice. */
async function assertExactlyOnce(databaseUrl: string, traffic: Traffic): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ content: string; n: number; ids: string[] }>(
      'SELECT content, count(*)::int AS n, array_agg(id) AS ids FROM entry WHERE content = ANY($1::text[]) GROUP BY content',
      [[...traffic.attempted]],
    );
    const stored = new Map(rows.map((r) => [r.content, r]));
    for (const [content, id] of traffic.acked) {
      const row = stored.get(content);
      assert.ok(row, `acknowledged write missing from the database: ${content}`);
      assert.equal(row.n, 1, `acknowledged write stored ${row.n} times: ${content}`);
      assert.deepEqual(row.ids, [id], 'stored under the id the client was given');
    }
    for (const row of rows) assert.equal(row.n, 1, `stored ${row.n} times: ${row.content}`);
  } finally {
    await client.end();
  }
}

async function getJson(url: string): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const target = postgresTestUrl();
if ('skip' in target) console.log(`# PostgreSQL outage tests skipped: ${target.skip}`);

describe("PostgreSQL: pg_terminate_backend on all of Cairn's connections, repeatedly, during writes and searches", { skip: 'skip' in target ? target.skip : undefined }, () => {
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
    server = await startCairnProcess({ DATABASE_URL: database.url, CAIRN_DATA_DIR: dataDir, CAIRN_REQUESTS_PER_MINUTE: '1000000' }, await freePort());
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
        const { rows } = await admin.query<{ n: number }>('SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
          dbName,
        ]);
        terminated += rows[0]!.n;
        assert.equal(server.exited(), undefined, `cairn exited after round ${round}:\n${server.output()}`);
        await sleep(300);
      }
      await sleep(1_000);
    } finally {
      await traffic.stop();
      await admin.end();
    }
    t.diagnostic(`terminated ${terminated} connections; answers ${JSON.stringify(Object.fromEntries(traffic.statuses))}; ${traffic.acked.size} writes acknowledged`);
    assert.equal(server.exited(), undefined, `cairn exited:\n${server.output()}`);
    assert.deepEqual(traffic.violations, [], `clients saw:\n${traffic.violations.join('\n')}`);
    assert.ok(terminated >= 15, `Cairn's connections were terminated (${terminated})`);
    // Killing a connection in the middle of a query is what makes a request fail; it must have happened.
    assert.ok(traffic.count('write 503') + traffic.count('mcp 503') > 0, `some requests met a dropped connection: ${JSON.stringify([...traffic.statuses])}`);
    assert.ok(traffic.acked.size >= 20, `writes went on being acknowledged (${traffic.acked.size})`);
    assert.match(server.output(), /database unreachable/, 'the outage is logged');
    assert.ok(!server.output().includes(database.url), 'the log never shows the connection string');
    await assertExactlyOnce(database.url, traffic);

    // Recovered by itself: a fresh MCP SDK client finds what was written, without a restart.
    const client = await connectMcpClient(`${server.baseUrl}/mcp`, key);
    try {
      const [content, id] = [...traffic.acked].at(-1)!;
      const found = await callTool<{ results: { entry: { id: string } }[] }>(client, 'search', { query: content.split(' ').at(-1)! });
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

describe('PostgreSQL: a full restart of the database server during a stream of writes', { skip: 'skip' in target ? target.skip : undefined }, () => {
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
    server = await startCairnProcess({ DATABASE_URL: postgres.url, CAIRN_DATA_DIR: dataDir, CAIRN_REQUESTS_PER_MINUTE: '1000000' }, await freePort());
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
      const me = () => fetch(`${server.baseUrl}/api/v1/me`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
      await sleep(1_500);
      assert.deepEqual(await getJson(`${server.baseUrl}/readyz`), { status: 200, retryAfter: null, body: { status: 'ready' } });
      pgServer.stop('fast');
      const writes503 = traffic.count('write 503');
      await waitFor('/readyz to say unavailable', async () => (await getJson(`${server.baseUrl}/readyz`)).status === 503);
      const ready = await getJson(`${server.baseUrl}/readyz`);
      assert.equal(ready.retryAfter, '3');
      assert.equal(ready.body.status, 'unavailable');
      assert.deepEqual((await getJson(`${server.baseUrl}/healthz`)).body, { status: 'ok' }, 'liveness does not depend on the database');
      const mcp = await mcpCall(server.baseUrl, key, 99, 'tools/list', {});
      assert.deepEqual(mcp, { status: 503 }, '/mcp answers a JSON-RPC error with 503');
      // The official SDK client surfaces that as an error saying what happened.
      await assert.rejects(connectMcpClient(`${server.baseUrl}/mcp`, key), (error: Error & { data?: { status?: number } }) => {
        assert.equal(error.data?.status, 503);
        assert.match(error.message, /database unreachable\); retry in 3 s/);
        return true;
      });
      const signInAnswer = await fetch(`${server.baseUrl}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: server.baseUrl },
        body: JSON.stringify({ email: 'nobody@example.test', password: 'not the password' }),
      });
      assert.equal(signInAnswer.status, 503, `better-auth's routes answer 503 too: ${await signInAnswer.clone().text()}`);
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
      await waitFor('/readyz to say ready again', async () => (await getJson(`${server.baseUrl}/readyz`)).status === 200);
      await waitFor('writes to be acknowledged again', async () => traffic.acked.size > ackedBeforeRestart + 10);
      assert.equal((await me()).status, 200, 'the portal session outlived the outage');
    } finally {
      await traffic.stop();
    }
    t.diagnostic(`answers ${JSON.stringify(Object.fromEntries(traffic.statuses))}; ${traffic.acked.size} writes acknowledged`);
    assert.equal(server.exited(), undefined, `cairn exited:\n${server.output()}`);
    assert.deepEqual(traffic.violations, [], `clients saw:\n${traffic.violations.join('\n')}`);
    assert.equal(server.output().match(/database unreachable/g)?.length, 1, `one outage, logged once:\n${server.output()}`);
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

describe('PostgreSQL: API-key usage written in the background survives an outage', { skip: 'skip' in target ? target.skip : undefined }, () => {
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
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
      await assert.rejects(cairn.keys.flush(), (error) => isDatabaseUnavailable(error));
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    // The pool may still hand out a connection whose termination it has not heard of yet: the first
    // query after an outage can meet it, exactly as a request would (and be answered 503). Retry as a client does.
    assert.equal((await onceReachable(() => cairn.store.getApiKey(record.id)))?.lastUsedClient, null, 'nothing was written during the outage');
    await onceReachable(() => cairn.keys.flush());
    assert.equal((await cairn.store.getApiKey(record.id))?.lastUsedClient, 'outage-probe/1.0', 'the usage kept for the next flush is written');
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
    assert.deepEqual(await getJson(`${server.baseUrl}/healthz`), { status: 200, retryAfter: null, body: { status: 'ok' } });
    assert.deepEqual(await getJson(`${server.baseUrl}/readyz`), { status: 200, retryAfter: null, body: { status: 'ready' } });
    const file = join(dataDir, 'cairn.db');
    renameSync(file, `${file}.away`);
    try {
      await waitFor('/readyz to notice the missing file', async () => (await getJson(`${server.baseUrl}/readyz`)).status === 503, 5_000);
      assert.equal((await getJson(`${server.baseUrl}/healthz`)).status, 200);
    } finally {
      renameSync(`${file}.away`, file);
    }
    await waitFor('/readyz to be ready again', async () => (await getJson(`${server.baseUrl}/readyz`)).status === 200, 5_000);
    assert.equal(server.exited(), undefined);
  });
});

/**
 * The servers the benchmark loads, each run by mcp-overhead.ts in a child process of its own so
 * that the load generator and the server never share an event loop.
 *
 *   servers.ts baseline          a bare Hono JSON endpoint
 *   servers.ts sdk-echo          the stock MCP SDK v2 `createMcpHandler` with one trivial echo tool
 *   servers.ts cairn <json>      a real Cairn with a seeded tenant (see CairnChildOptions)
 *
 * Talks to the parent over the fork IPC channel (see ChildMessage / ParentMessage).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { z } from 'zod';
import { loadTurns } from '../measure/locomo.js';
import type { Cairn } from '../src/runtime/open-cairn.js';
import type { PoolStats } from '../src/search/search-cache.js';
import { createTestDatabase } from '../src/testing/postgres.js';
import { freePort } from '../src/testing/test-cairn.js';
import { seedOthers } from './seed-others.js';
import { seedTenants } from './seed-tenants.js';

export interface CairnChildOptions {
  postgresServerUrl?: string;
  /** Run Cairn from its TypeScript sources (through tsx) instead of the build `npm start` runs. */
  source?: boolean;
  /** Run the build of another checkout (an older commit's worktree) instead of this one's. */
  root?: string;
  entries: number;
  dataPath: string;
}

export interface SeedReport {
  created: number;
  duplicates: number;
  datapacks: number;
  seconds: number;
}

export type ChildMessage =
  | { type: 'ready'; url: string; key?: string; seed?: SeedReport }
  | { type: 'rss'; rssMb: number; heapMb?: number; pools?: { built: number; refreshed: number; taken: number } }
  /** CPU time the process has used so far (user + system), in microseconds. */
  | { type: 'cpu'; micros: number }
  | { type: 'profile-started' }
  | { type: 'profile-saved'; path: string }
  | { type: 'seed-progress'; done: number; goal: number }
  | { type: 'grown'; total: number; seconds: number; rssMb: number }
  | { type: 'forgotten'; removed: number }
  | { type: 'tenants'; keys: string[]; seconds: number }
  /** The settings the Cairn ran with (its data folder or database among them); the data is now the receiver's to remove. */
  | { type: 'handed-over'; env: Record<string, string> }
  | { type: 'failed'; message: string };

export type ParentMessage =
  | { type: 'profile-start' }
  | { type: 'profile-stop'; path: string }
  /** Fill the database with other tenants' entries until it holds `total` (bench/seed-others.ts). */
  | { type: 'grow'; total: number; perTenant: number }
  /** Delete for good the entries the seeded user created from `since` on (the insert measurement's), so each size starts alike. */
  | { type: 'forget'; since: string }
  /** Create `users` users (numbered from `first`, default 0) with a key each and `perUser` entries in each one's personal datapack (bench/seed-tenants.ts). */
  | { type: 'tenants'; users: number; perUser: number; first?: number }
  /** Report resident memory now (after a forced GC when --expose-gc is on). */
  | { type: 'rss' }
  | { type: 'cpu' }
  /** Close Cairn but keep its data, report where it is, and exit: a `cairn serve` of its own takes over (bench/served-cairn.ts). */
  | { type: 'hand-over' }
  | { type: 'close' };

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => process.send!(message, () => resolve()));
}

async function runBaseline(): Promise<void> {
  const app = new Hono().post('/json', (c) => c.json({ ok: true }));
  const server = serve(
    { fetch: app.fetch, hostname: '127.0.0.1', port: 0 },
    (info) => void send({ type: 'ready', url: `http://127.0.0.1:${info.port}/json` }),
  );
  onParentMessage(
    async () => {},
    () => new Promise<void>((resolve) => server.close(() => resolve())),
  );
}

/** The anchor a Cairn tool call is measured against: what the stock SDK costs for a call that does nothing. */
async function runSdkEcho(): Promise<void> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'echo', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echoes the text', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return server;
  });
  const app = new Hono().all('/mcp', (c) => handler.fetch(c.req.raw));
  const server = serve(
    { fetch: app.fetch, hostname: '127.0.0.1', port: 0 },
    (info) => void send({ type: 'ready', url: `http://127.0.0.1:${info.port}/mcp` }),
  );
  onParentMessage(
    async (message) => {
      if (message.type === 'rss') await send({ type: 'rss', rssMb: rssMb() });
    },
    () => new Promise<void>((resolve) => server.close(() => resolve())),
  );
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The JavaScript heap and array buffers in use (after rssMb's collection): what Cairn holds, without the process's own overhead. */
function heapMb(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return Math.round((heapUsed + arrayBuffers) / 2 ** 20);
}

function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round(process.memoryUsage().rss / 2 ** 20);
}

/**
 * Cairn's modules as `npm start` runs them (dist/, plain JavaScript), or its sources with `source`:
 * tsx compiles the sources with esbuild's keepNames, which wraps every function made at run time
 * in a naming call, a cost the build does not have.
 */
async function cairnModules(source: boolean, root?: string) {
  const base = root ? new URL(`file://${resolve(root)}/packages/server/`) : new URL('../', import.meta.url);
  const load = async <M>(path: string): Promise<M> => {
    try {
      return (await import(new URL(`${source ? 'src' : 'dist'}/${path}.${source ? 'ts' : 'js'}`, base).href)) as M;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND')
        throw new Error(
          'Cairn is not built: run "npm run build" first (the benchmark measures the build that npm start runs), or pass --source',
        );
      throw error;
    }
  };
  return {
    ...(await load<typeof import('../src/config/load-config.js')>('config/load-config')),
    ...(await load<typeof import('../src/runtime/open-cairn.js')>('runtime/open-cairn')),
    ...(await load<typeof import('../src/runtime/serve.js')>('runtime/serve')),
    ...(await load<typeof import('../src/domain/accounts.js')>('domain/accounts')),
    ...(await load<typeof import('../src/domain/api-keys.js')>('domain/api-keys')),
    ...(await load<typeof import('../src/domain/access.js')>('domain/access')),
    ...(await load<typeof import('../src/domain/datapacks.js')>('domain/datapacks')),
    ...(await load<typeof import('../src/domain/entries.js')>('domain/entries')),
    // A baseline built before the caches moved into the store kept its pool counts in this module.
    ...(await load<{ poolStats?: PoolStats }>('search/search-cache')),
  };
}
type CairnModules = Awaited<ReturnType<typeof cairnModules>>;

/** A Cairn on a free loopback port with its own SQLite folder or PostgreSQL database, and an owner with a key. */
async function startCairn(m: CairnModules, options: CairnChildOptions) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  const database = options.postgresServerUrl ? await createTestDatabase(options.postgresServerUrl) : undefined;
  const env: Record<string, string> = {
    // The operator's own settings (CAIRN_SEARCH_CACHE_MB, say) reach the measured Cairn; the bench's below win.
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('CAIRN_') && !name.startsWith('CAIRN_TEST_')),
    ),
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    CAIRN_DATA_DIR: dataDir,
    CAIRN_LOG_LEVEL: 'warn',
    // One key under load: the per-key request limit (600 a minute) would answer 429 and measure nothing.
    CAIRN_REQUESTS_PER_MINUTE: '1000000000',
    // Capacity is measured here, not shedding (bench:overload measures the bound): every connection may queue.
    CAIRN_MAX_QUEUED_REQUESTS: '100000',
    CAIRN_MAX_QUEUE_WAIT_MS: '60000',
    ...(database && { DATABASE_URL: database.url }),
  };
  const config = m.loadConfig(env);
  const cairn = await m.openCairn(config);
  const { server } = await m.listen(cairn);
  const { user } = await m.createUser(cairn.domain, cairn.auth, {
    email: 'bench@example.test',
    password: randomBytes(12).toString('hex'),
    org: 'Bench',
    join: false,
    name: 'Bench',
  });
  const { key } = await m.createApiKey(cairn.domain, user.id, 'bench key');
  return {
    cairn,
    mcpUrl: `${config.baseUrl}/mcp`,
    ownerId: user.id,
    key,
    async close() {
      await m.stopListening(server);
      await cairn.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    /** Closes Cairn and leaves its data in place: the settings to open it again. */
    async handOver() {
      await m.stopListening(server);
      await cairn.close();
      return env;
    },
  };
}

/** How the Cairn's pools came to be; a baseline older than `taken` counted no takes. */
function poolCounts(stats: Partial<PoolStats> | undefined) {
  return { built: stats?.built ?? 0, refreshed: stats?.refreshed ?? 0, taken: stats?.taken ?? 0 };
}

async function runCairn(options: CairnChildOptions): Promise<void> {
  const m = await cairnModules(options.source ?? false, options.root);
  const test = await startCairn(m, options);
  try {
    const seed = await seedEntries(m, test.cairn, test.ownerId, options);
    await send({ type: 'ready', url: test.mcpUrl, key: test.key, seed });
  } catch (error) {
    await test.close();
    throw error;
  }
  const profiler = new Session();
  profiler.connect();
  onParentMessage(
    async (message) => {
      if (message.type === 'profile-start') {
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
        await send({ type: 'profile-started' });
      } else if (message.type === 'profile-stop') {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(message.path, JSON.stringify(profile));
        await send({ type: 'profile-saved', path: message.path });
      } else if (message.type === 'rss') {
        await send({
          type: 'rss',
          rssMb: rssMb(),
          heapMb: heapMb(),
          pools: poolCounts(test.cairn.store.searchCache?.stats ?? m.poolStats),
        });
      } else if (message.type === 'grow') {
        const started = Date.now();
        const turns = (await loadTurns(options.dataPath)).map((t) => ({ title: t.title, content: t.content }));
        let last = 0;
        const total = await seedOthers(test.cairn.store, message.total, turns, message.perTenant, (done, goal) => {
          if (done === goal || Date.now() - last > 2000) {
            last = Date.now();
            void send({ type: 'seed-progress', done, goal });
          }
        });
        await send({
          type: 'grown',
          total,
          seconds: (Date.now() - started) / 1000,
          rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
        });
      } else if (message.type === 'tenants') {
        const started = Date.now();
        const turns = (await loadTurns(options.dataPath)).map((t) => ({ title: t.title, content: t.content }));
        let last = 0;
        const keys = await seedTenants(
          m,
          test.cairn,
          message.users,
          message.perUser,
          turns,
          (done) => {
            if (done === message.users || Date.now() - last > 2000) {
              last = Date.now();
              void send({ type: 'seed-progress', done, goal: message.users });
            }
          },
          message.first,
        );
        await send({ type: 'tenants', keys, seconds: (Date.now() - started) / 1000 });
      } else if (message.type === 'hand-over') {
        await send({ type: 'handed-over', env: await test.handOver() });
        process.exit(0);
      } else if (message.type === 'forget') {
        const result = await test.cairn.store.db
          .deleteFrom('entry')
          .where('created_by', '=', test.ownerId)
          .where('created_at', '>=', message.since)
          .executeTakeFirst();
        await send({ type: 'forgotten', removed: Number(result.numDeletedRows) });
      }
    },
    () => test.close(),
  );
}

/** Saves `entries` LoCoMo dialogue turns through the domain layer, alternating the owner's personal and organization datapacks. */
async function seedEntries(
  m: CairnModules,
  cairn: Cairn,
  ownerId: string,
  options: CairnChildOptions,
): Promise<SeedReport> {
  const started = Date.now();
  const { loadAccess, listDatapacks, saveEntry } = m;
  const access = await loadAccess(cairn.domain, {
    userId: ownerId,
    client: 'cairn-bench',
    via: 'cli',
    scope: 'read-write',
  });
  const packs = await listDatapacks(cairn.domain, access);
  const turns = await loadTurns(options.dataPath);
  let created = 0;
  let duplicates = 0;
  // Small batches: sequential saves make the PostgreSQL seeding needlessly slow; unbounded ones flood the pool.
  for (let i = 0; i < turns.length && created < options.entries; i += 8) {
    const batch = turns.slice(i, Math.min(i + 8, i + options.entries - created));
    const results = await Promise.all(
      batch.map((turn, j) => saveEntry(cairn.domain, access, { ...turn, datapack: packs[(i + j) % packs.length]!.id })),
    );
    for (const r of results) r.status === 'created' ? created++ : duplicates++;
  }
  if (created < options.entries)
    throw new Error(
      `only ${created} distinct entries could be seeded from ${options.dataPath} (asked for ${options.entries})`,
    );
  return { created, duplicates, datapacks: packs.length, seconds: (Date.now() - started) / 1000 };
}

function onParentMessage(handle: (message: ParentMessage) => Promise<void>, close: () => Promise<void>): void {
  const shutdown = async () => {
    await close().catch((error: Error) => console.error(`close failed: ${error.message}`));
    process.exit(0);
  };
  process.on('disconnect', () => void shutdown());
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'close') void shutdown();
    else if (message.type === 'cpu') void send({ type: 'cpu', micros: cpuMicros() });
    else handle(message).catch((error: Error) => void send({ type: 'failed', message: error.message }));
  });
}

const [role, json] = process.argv.slice(2);
const started =
  role === 'baseline'
    ? runBaseline()
    : role === 'sdk-echo'
      ? runSdkEcho()
      : role === 'cairn'
        ? runCairn(JSON.parse(json ?? '{}') as CairnChildOptions)
        : Promise.reject(new Error(`unknown role ${role}`));
started.catch((error: Error) => {
  void send({ type: 'failed', message: error.stack ?? error.message }).then(() => process.exit(1));
});

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CairnConfig, loadConfig } from '../config/load-config.js';
import { createLogger, type Logger, type LogLevel } from '../log/logger.js';
import { type Cairn, openCairn } from '../runtime/open-cairn.js';
import { listen, stopListening } from '../runtime/serve.js';
import type { KyselyStore } from '../store/kysely-store.js';
import { createMigratedTestDatabase } from './postgres-template.js';

/** A Cairn listening on a free loopback port, with its own data folder or database. */
export interface TestCairn {
  cairn: Cairn;
  baseUrl: string;
  mcpUrl: string;
  /** Log lines written while it ran (level debug and up). */
  logs: string[];
  close(): Promise<void>;
}

/** Options for startTestCairn. */
export interface TestCairnOptions {
  /** A PostgreSQL server URL: a fresh database is created on it. Default: a SQLite file in a temp folder. */
  postgresServerUrl?: string;
  /** Reuse an existing database URL (to run several instances on one database). */
  databaseUrl?: string;
  env?: Record<string, string>;
  wrapStore?: (store: KyselyStore) => KyselyStore;
}

/**
 * Starts a real Cairn (real database, real HTTP) for one test. Without an explicit backend it follows
 * CAIRN_TEST_BACKEND, which the test runner sets on its PostgreSQL pass; a suite says which backends it
 * runs on with forEachBackend or runFileOnEachBackend (backends.ts).
 */
export async function startTestCairn(options: TestCairnOptions = {}): Promise<TestCairn> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-test-'));
  const serverUrl = options.postgresServerUrl ?? (options.databaseUrl ? undefined : backendFromEnvironment());
  const database = serverUrl ? await createMigratedTestDatabase(serverUrl) : undefined;
  const port = await freePort();
  const config: CairnConfig = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    CAIRN_DATA_DIR: dataDir,
    ...(database && { DATABASE_URL: database.url }),
    ...(options.databaseUrl && { DATABASE_URL: options.databaseUrl }),
    ...options.env,
  });
  const logs: string[] = [];
  const log: Logger = createLogger('debug' as LogLevel, (line) => logs.push(line));
  const { openStore } = await import('../runtime/open-store.js');
  const store = await openStore(config);
  const cairn = await openCairn(config, { log, store: options.wrapStore ? options.wrapStore(store) : store });
  const { server } = await listen(cairn);
  return {
    cairn,
    baseUrl: config.baseUrl,
    mcpUrl: `${config.baseUrl}/mcp`,
    logs,
    async close() {
      await stopListening(server);
      await cairn.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The PostgreSQL server to use when the runner asks for the postgres pass, else undefined (SQLite). */
function backendFromEnvironment(): string | undefined {
  if (process.env.CAIRN_TEST_BACKEND !== 'postgres') return undefined;
  const url = process.env.CAIRN_TEST_DATABASE_URL;
  if (!url) throw new Error('CAIRN_TEST_BACKEND=postgres needs CAIRN_TEST_DATABASE_URL (a PostgreSQL server URL)');
  return url;
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

import { join } from 'node:path';
import type { CairnConfig } from '../config/load-config.js';
import { SearchCache } from '../search/index.js';
import type { PostgresStore } from '../store/postgres/postgres-store.js';
import type { SqliteStore } from '../store/sqlite/sqlite-store.js';

/**
 * The store the settings ask for: PostgreSQL when DATABASE_URL is set, else the SQLite file in the
 * data folder. Only that backend's driver is loaded: a process never holds the other's in memory.
 * `patient`: nobody waits on this process's answers (the CLI), so on SQLite a query waits up to 15 s
 * for another process's write lock instead of a request's 750 ms.
 */
export async function openStore(
  config: Pick<CairnConfig, 'databaseUrl' | 'dataDir'> &
    Partial<Pick<CairnConfig, 'semanticSearch' | 'databasePool' | 'searchCacheMb'>>,
  options: { patient?: boolean } = {},
): Promise<SqliteStore | PostgresStore> {
  let store: SqliteStore | PostgresStore;
  if (config.databaseUrl) {
    const { openPostgresPool, PostgresStore } = await import('../store/postgres/postgres-store.js');
    store = new PostgresStore(openPostgresPool(config.databaseUrl, config.databasePool));
  } else {
    const { openSqliteDatabase, PATIENT_LOCK_WAIT_MS, SqliteStore } = await import('../store/sqlite/sqlite-store.js');
    store = new SqliteStore(
      openSqliteDatabase(join(config.dataDir, 'cairn.db')),
      options.patient ? { lockWaitMs: PATIENT_LOCK_WAIT_MS } : {},
    );
  }
  store.semanticSearch = config.semanticSearch ?? true;
  // This store's own: two Cairns in one process keep separate caches, each within the bound.
  store.searchCache = new SearchCache(config.searchCacheMb);
  return store;
}

/** Where the store lives, for the start-up banner (no password). */
export function describeStore(config: Pick<CairnConfig, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `SQLite ${join(config.dataDir, 'cairn.db')}`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`;
}

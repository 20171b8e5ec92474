import { join } from 'node:path';
import type { CairnConfig } from '../config/load-config.js';
import { openPostgresPool, PostgresStore } from '../store/postgres/postgres-store.js';
import { openSqliteDatabase, SqliteStore } from '../store/sqlite/sqlite-store.js';

/** The store the settings ask for: PostgreSQL when DATABASE_URL is set, else the SQLite file in the data folder. */
export function openStore(config: Pick<CairnConfig, 'databaseUrl' | 'dataDir'> & Partial<Pick<CairnConfig, 'semanticSearch'>>): SqliteStore | PostgresStore {
  const store = config.databaseUrl ? new PostgresStore(openPostgresPool(config.databaseUrl)) : new SqliteStore(openSqliteDatabase(join(config.dataDir, 'cairn.db')));
  store.semanticSearch = config.semanticSearch ?? true;
  return store;
}

/** Where the store lives, for the start-up banner (no password). */
export function describeStore(config: Pick<CairnConfig, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `SQLite ${join(config.dataDir, 'cairn.db')}`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`;
}

import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import type { CandidateRow } from '../../search/index.js';
import { KyselyStore } from '../kysely-store.js';
import { runMigrations } from '../run-migrations.js';
import type { Database } from '../schema.js';
import type { DatapackImport } from '../transfer-types.js';
import { LockAwareSqliteDialect, type LockWait, REQUEST_LOCK_WAIT_MS } from './lock-aware-driver.js';
import { sqliteMatchExpression } from './sqlite-match.js';
import { sqliteMigrations } from './sqlite-migrations.js';
import { withStatementCache } from './statement-cache.js';

/** Opens (creating if needed) the SQLite file with the settings Cairn relies on. */
export function openSqliteDatabase(file: string): BetterSqlite3.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  // Opening may wait for another process's lock (nothing is served yet); queries never do: the
  // driver waits for a lock off the event loop (lock-aware-driver.ts).
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 0');
  return db;
}

/** The pause after each transaction of an import (lock-aware-driver.ts retries at most 50 ms apart). */
const IMPORT_YIELD_MS = 75;

/** How long start-up (migrations) and the `cairn` CLI wait for another process's lock: nobody is kept waiting on them. */
export const PATIENT_LOCK_WAIT_MS = 15_000;

/** The embedded default backend: one SQLite file, FTS5 for search. */
export class SqliteStore extends KyselyStore {
  readonly dialect = 'sqlite';

  /** How long a query waits for another process's write lock before it fails as busy (503). */
  readonly lockWait: LockWait;

  constructor(
    readonly database: BetterSqlite3.Database,
    options: { lockWaitMs?: number } = {},
  ) {
    const lockWait = { ms: options.lockWaitMs ?? REQUEST_LOCK_WAIT_MS };
    super(
      new Kysely<Database>({ dialect: new LockAwareSqliteDialect(withStatementCache(database), database, lockWait) }),
    );
    this.lockWait = lockWait;
  }

  /** One process owns the file at start-up; SQLite's own write lock covers the rest, waited for patiently while nothing is served. */
  async withStartupLock<T>(work: () => Promise<T>): Promise<T> {
    const during = this.lockWait.ms;
    this.lockWait.ms = Math.max(during, PATIENT_LOCK_WAIT_MS);
    try {
      return await work();
    } finally {
      this.lockWait.ms = during;
    }
  }

  async migrate(): Promise<void> {
    await runMigrations(this.db, sqliteMigrations);
  }

  /** Each batch of an import, then a pause longer than a waiting writer's retry step: another process's writes get the lock in between. */
  override async importDatapack(write: DatapackImport): Promise<void> {
    await super.importDatapack(write);
    await new Promise((resolve) => setTimeout(resolve, IMPORT_YIELD_MS));
  }

  /** The open handle keeps answering after its file is deleted, so the file itself is checked too. */
  override async ping(): Promise<void> {
    if (!this.database.memory) accessSync(this.database.name, constants.R_OK | constants.W_OK);
    this.database.prepare('SELECT 1').get();
  }

  protected async searchCandidates(
    datapackIds: string[],
    terms: string[],
    kinds: string[] | undefined,
    max: number,
    prefixes: boolean,
  ): Promise<CandidateRow[]> {
    const match = sqliteMatchExpression(terms, datapackIds, prefixes);
    const kindFilter = kinds?.length ? sql`AND e.kind IN (${sql.join(kinds)})` : sql``;
    // Beyond `max` matches the most recent are kept: a choice that depends on the caller's data only
    // (FTS5's bm25 would weigh in every tenant's statistics).
    const { rows } = await sql<CandidateRow>`
      SELECT e.id, e.kind, e.version, e.updated_at
      FROM entry_fts JOIN entry e ON e.seq = entry_fts.rowid
      WHERE entry_fts MATCH ${match}
        AND e.deleted_at IS NULL
        ${kindFilter}
      ORDER BY e.updated_at DESC, e.id
      LIMIT ${max}`.execute(this.db);
    return rows;
  }

  isUniqueViolation(error: unknown): boolean {
    return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
  }
}

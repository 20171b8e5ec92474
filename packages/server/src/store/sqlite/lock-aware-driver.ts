import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
  type TransactionSettings,
} from 'kysely';
import { DatabaseLockedError } from '../../errors/server-busy.js';

/** How long a request waits, in all, for another process to release the SQLite file's write lock. */
export const REQUEST_LOCK_WAIT_MS = 750;

/** The waits between tries: short first (most locks are a few ms), never longer than 50 ms. */
const BACKOFF_MS = [2, 4, 8, 16, 32, 50];

/** better-sqlite3's codes for "another connection holds the lock": SQLITE_BUSY and its extended codes. */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** How long the driver may wait for another process's lock; the store changes it for start-up and the CLI. */
export interface LockWait {
  ms: number;
}

/**
 * Kysely's SQLite dialect with a driver that never waits on the event loop for another process's
 * lock. better-sqlite3 is synchronous, so SQLite's busy_timeout would sleep the whole process; with it
 * at 0 a locked statement fails at once with SQLITE_BUSY, and this driver tries again after a timer,
 * letting other queries (reads keep working under WAL) run in between, until `wait.ms` has passed.
 * Transactions begin IMMEDIATE, so a busy lock can only meet them at BEGIN, before anything was done.
 */
export class LockAwareSqliteDialect extends SqliteDialect {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly raw: BetterSqlite3.Database,
    private readonly wait: LockWait,
  ) {
    super({ database });
  }

  override createDriver(): Driver {
    return new LockAwareSqliteDriver(this.database, this.raw, this.wait);
  }
}

class LockAwareSqliteDriver implements Driver {
  readonly #mutex = new Mutex();
  readonly #connection: LockAwareConnection;

  constructor(
    private readonly database: SqliteDatabase,
    raw: BetterSqlite3.Database,
    wait: LockWait,
  ) {
    this.#connection = new LockAwareConnection(database, raw, wait, this.#mutex);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(
      CompiledQuery.raw(settings.accessMode === 'read only' ? 'begin deferred' : 'begin immediate'),
    );
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteName(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteName(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteName(name)}`));
  }

  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }

  async destroy(): Promise<void> {
    this.database.close();
  }
}

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

class LockAwareConnection implements DatabaseConnection {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly raw: BetterSqlite3.Database,
    private readonly wait: LockWait,
    private readonly mutex: Mutex,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return this.run<R>(query);
      } catch (error) {
        if (!isSqliteBusy(error)) throw error;
        const waited = performance.now() - started;
        if (waited >= this.wait.ms) throw new DatabaseLockedError(this.wait.ms, { cause: error });
        const pause = Math.min(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!, this.wait.ms - waited);
        // Outside a transaction the connection is free while we wait: other queries, reads above all, go on.
        // Inside one (a COMMIT meeting a lock), it stays ours: nobody else may run in our transaction.
        const inTransaction = this.raw.inTransaction;
        if (!inTransaction) this.mutex.unlock();
        await new Promise((resolve) => setTimeout(resolve, pause));
        if (!inTransaction) await this.mutex.lock();
      }
    }
  }

  private run<R>({ sql, parameters }: CompiledQuery): QueryResult<R> {
    const statement = this.db.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    };
  }

  // biome-ignore lint/correctness/useYield: Cairn never streams a query (the statement cache relies on it).
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Cairn does not stream SQLite queries');
  }
}

/** Kysely's one-connection mutex for SQLite, as its own driver has it. */
class Mutex {
  #promise?: Promise<void>;
  #resolve?: () => void;

  async lock(): Promise<void> {
    while (this.#promise) await this.#promise;
    this.#promise = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  unlock(): void {
    const resolve = this.#resolve;
    this.#promise = undefined;
    this.#resolve = undefined;
    resolve?.();
  }
}

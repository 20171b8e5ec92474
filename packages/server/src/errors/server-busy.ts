/** Seconds a client is told to wait when every database connection of the instance stayed in use too long. */
export const DATABASE_BUSY_RETRY_AFTER_S = 2;

/** Why a request that met an exhausted connection pool was refused. */
export const BUSY_DATABASE = 'all its database connections are in use';

/** What a refused client reads: the server is overloaded (not down) and when to try again. */
export function busyMessage(
  retryAfterSeconds: number,
  why = 'too many requests are in progress on this instance',
): string {
  return `Cairn is busy (${why}); retry in ${retryAfterSeconds} s. The database is fine; nothing was done.`;
}

/**
 * Every database connection of this instance stayed in use past the pool's wait while the
 * database itself answers: load, not an outage. Thrown by the PostgreSQL store instead of pg-pool's
 * "timeout exceeded when trying to connect", which otherwise reads as an unreachable database.
 */
export class DatabaseBusyError extends Error {
  override name = 'DatabaseBusyError';
  readonly code = 'CAIRN_DATABASE_BUSY';
  constructor(poolSize: number, waitedMs: number) {
    super(`all ${poolSize} database connections of this instance stayed in use for ${waitedMs} ms`);
  }
}

/** Seconds a client is told to wait when another process held the SQLite database's write lock too long. */
export const DATABASE_LOCKED_RETRY_AFTER_S = 1;

/** Why a request that met another process's write lock on the SQLite file was refused. */
export const LOCKED_DATABASE =
  'another process (such as a running `cairn import`) holds the write lock of its SQLite database';

/**
 * Another process held the SQLite file's write lock for longer than a request may wait. Thrown by
 * the SQLite driver instead of SQLITE_BUSY, once its waits (off the event loop) ran out.
 */
export class DatabaseLockedError extends Error {
  override name = 'DatabaseLockedError';
  readonly code = 'CAIRN_DATABASE_LOCKED';
  constructor(waitedMs: number, options?: ErrorOptions) {
    super(`another process held the SQLite database's write lock for more than ${waitedMs} ms`, options);
  }
}

/** What a busy refusal tells the client: why, and when to retry. */
export interface BusyReason {
  why: string;
  retryAfterSeconds: number;
}

const POOL_BUSY: BusyReason = { why: BUSY_DATABASE, retryAfterSeconds: DATABASE_BUSY_RETRY_AFTER_S };
const LOCKED: BusyReason = { why: LOCKED_DATABASE, retryAfterSeconds: DATABASE_LOCKED_RETRY_AFTER_S };

/** Why an error, or one it wraps (Kysely, better-auth and Node wrap), means the database is busy; undefined when it does not. */
export function busyReason(error: unknown, depth = 0): BusyReason | undefined {
  if (!error || typeof error !== 'object' || depth > 5) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (error instanceof DatabaseBusyError || code === 'CAIRN_DATABASE_BUSY') return POOL_BUSY;
  if (error instanceof DatabaseLockedError || code === 'CAIRN_DATABASE_LOCKED') return LOCKED;
  if (Array.isArray(errors)) {
    for (const e of errors) {
      const reason = busyReason(e, depth + 1);
      if (reason) return reason;
    }
  }
  return busyReason(cause, depth + 1);
}

/** Whether an error, or one it wraps, is the database being busy (a pool in use, or another process's lock). */
export function isServerBusy(error: unknown): boolean {
  return busyReason(error) !== undefined;
}

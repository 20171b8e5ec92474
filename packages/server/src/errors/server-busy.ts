/** JSON-RPC error code of `/mcp`'s "busy" 503 (server-defined range, beside the outage's -32053, which is also a 503). */
export const BUSY_JSONRPC_CODE = -32054;

/** Seconds a client is told to wait when every database connection of the instance stayed in use too long. */
export const DATABASE_BUSY_RETRY_AFTER_S = 2;

/** Why a request that met an exhausted connection pool was refused. */
export const BUSY_DATABASE = 'all its database connections are in use';

/** What a refused client reads: the server is overloaded (not down) and when to try again. */
export function busyMessage(retryAfterSeconds: number, why = 'too many requests are in progress on this instance'): string {
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

/** Whether an error, or one it wraps (Kysely, better-auth and Node wrap), is the pool being busy. */
export function isServerBusy(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  if (error instanceof DatabaseBusyError) return true;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (code === 'CAIRN_DATABASE_BUSY') return true;
  if (Array.isArray(errors) && errors.some((e) => isServerBusy(e, depth + 1))) return true;
  return isServerBusy(cause, depth + 1);
}

/** Seconds a client is told to wait (Retry-After) while the database is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_S = 3;

/** What a client reads while the database is unreachable: what happened and when to try again. */
export const UNAVAILABLE_MESSAGE = `Cairn cannot reach its database right now (database unreachable); retry in ${UNAVAILABLE_RETRY_AFTER_S} s.`;

// PostgreSQL SQLSTATEs that mean "no usable connection", not "this statement is wrong":
// admin_shutdown, crash_shutdown, cannot_connect_now, the connection_exception class, too_many_connections.
const PG_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);
const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTCONN',
]);
// node-postgres and pg-pool raise these as plain Errors without a code.
const MESSAGES = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect$/, // pg-pool: no client within connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
  /is not currently accepting connections/, // ALLOW_CONNECTIONS false (SQLSTATE 55000, shared with unrelated errors)
];

/**
 * Whether an error means the database cannot be reached (as opposed to a bug or bad input), so the
 * request should be answered 503 and retried. Looks through `cause` chains and AggregateErrors,
 * since Kysely, better-auth and Node wrap the original error.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (PG_CODES.has(code) || NODE_CODES.has(code))) return true;
  if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** A short description for the log: the code and message, never a connection string. */
export function describeDatabaseError(error: unknown): { code?: string; message: string } {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' && { code }),
    message: typeof message === 'string' ? message.replace(/\w+:\/\/[^\s]*/g, '<url>') : String(error),
  };
}

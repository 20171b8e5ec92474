/**
 * Every JSON-RPC error code `/mcp` answers, in one place. Apart from the spec's Invalid Request, they
 * are in JSON-RPC's server-defined range (-32000 to -32099); where they answer an HTTP status, the
 * last two digits echo it (-32029 for 429, -32053 and -32054 for the two kinds of 503).
 */
export const JSONRPC_CODES = {
  /** 400: the body is not a JSON-RPC request (JSON-RPC's own code). */
  invalidRequest: -32600,
  /** 413: the body is larger than a request may be. */
  payloadTooLarge: -32000,
  /** 401 or 403 at the /mcp gate: no credential, or one Cairn does not accept. */
  unauthorized: -32001,
  /** A read-only credential called a write tool. */
  readOnlyKey: -32003,
  /** 429: a rate limit. */
  rateLimited: -32029,
  /** 503: the database cannot be reached. */
  databaseUnavailable: -32053,
  /** 503: the instance is busy (its database connections, another process's lock, or too many requests). */
  busy: -32054,
} as const;

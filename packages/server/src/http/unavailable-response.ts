import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_S } from '../errors/database-unavailable.js';
import { JSONRPC_CODES } from '../errors/jsonrpc-codes.js';

/** The JSON API's 503 body and headers. */
export function unavailableJsonResponse(): Response {
  return Response.json(
    { error: { code: 'unavailable', message: UNAVAILABLE_MESSAGE } },
    { status: 503, headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) } },
  );
}

/** `/mcp`'s 503: a JSON-RPC error answering the request's id (null when it could not be read). */
export function unavailableJsonRpcResponse(id: string | number | null): Response {
  const body = {
    jsonrpc: '2.0',
    id,
    error: {
      code: JSONRPC_CODES.databaseUnavailable,
      message: UNAVAILABLE_MESSAGE,
      data: { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_S },
    },
  };
  return Response.json(body, { status: 503, headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) } });
}

import { JSONRPC_CODES } from '../../errors/jsonrpc-codes.js';
import { busyMessage } from '../../errors/server-busy.js';
import { retryWhen } from '../rate-limit/too-many.js';

/** The JSON API's 503 "busy": `{ error: { code: 'busy', message, retryAfterSeconds, retryAt } }` with Retry-After. */
export function busyJson(seconds: number, why?: string): Response {
  const body = {
    error: {
      code: 'busy',
      message: busyMessage(seconds, why),
      retryAfterSeconds: seconds,
      retryAt: retryWhen(seconds).retryAt,
    },
  };
  return Response.json(body, { status: 503, headers: { 'Retry-After': String(seconds), 'Cache-Control': 'no-store' } });
}

/** `/mcp`'s 503 "busy": a JSON-RPC error (JSONRPC_CODES.busy) answering the request's id, with Retry-After. */
export function busyJsonRpc(id: string | number | null, seconds: number, why?: string): Response {
  const body = {
    jsonrpc: '2.0',
    id,
    error: {
      code: JSONRPC_CODES.busy,
      message: busyMessage(seconds, why),
      data: { retryAfterSeconds: seconds, retryAt: retryWhen(seconds).retryAt },
    },
  };
  return Response.json(body, { status: 503, headers: { 'Retry-After': String(seconds), 'Cache-Control': 'no-store' } });
}

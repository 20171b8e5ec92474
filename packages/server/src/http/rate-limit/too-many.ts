import { JSONRPC_CODES } from '../../errors/jsonrpc-codes.js';

/** When, in words and as a timestamp, a refused client may try again. */
export function retryWhen(seconds: number, now = Date.now()): { text: string; retryAt: string } {
  const retryAt = new Date(now + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const text = seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return { text: `in ${text} (after ${retryAt.slice(11, 16)} UTC)`, retryAt };
}

/** 429 for the JSON API and the portal: `{ error: { code, message, retryAfterSeconds, retryAt } }` with Retry-After. */
export function tooManyJson(seconds: number, what: string): Response {
  const when = retryWhen(seconds);
  const body = {
    error: {
      code: 'rate_limited',
      message: `${what} Try again ${when.text}.`,
      retryAfterSeconds: seconds,
      retryAt: when.retryAt,
    },
  };
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(seconds) },
  });
}

/** 429 for /mcp: a JSON-RPC error (the request id is unknown here, hence null) with Retry-After. */
export function tooManyJsonRpc(seconds: number, what: string): Response {
  const when = retryWhen(seconds);
  const body = {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: JSONRPC_CODES.rateLimited,
      message: `${what} Try again ${when.text}.`,
      data: { retryAfterSeconds: seconds, retryAt: when.retryAt },
    },
  };
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(seconds) },
  });
}

/** 429 for OAuth endpoints (RFC 6749 error shape) with Retry-After. */
export function tooManyOAuth(seconds: number, what: string): Response {
  const when = retryWhen(seconds);
  const body = {
    error: 'temporarily_unavailable',
    error_description: `${what} Try again ${when.text}.`,
    retry_after: seconds,
  };
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(seconds), 'cache-control': 'no-store' },
  });
}

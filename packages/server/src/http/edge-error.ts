import type { Context } from 'hono';
import { JSONRPC_CODES } from '../errors/jsonrpc-codes.js';

/**
 * An error answered at the HTTP edge, before any route: a JSON-RPC error object on /mcp (what MCP
 * clients parse), Cairn's `{"error":{"code","message"}}` everywhere else.
 */
export function edgeError(c: Context, status: 400 | 413, message: string): Response {
  if (c.req.path === '/mcp' || c.req.path === '/mcp/') {
    return c.json(
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: status === 413 ? JSONRPC_CODES.payloadTooLarge : JSONRPC_CODES.invalidRequest, message },
      },
      status,
    );
  }
  return c.json({ error: { code: status === 413 ? 'payload_too_large' : 'invalid_input', message } }, status);
}

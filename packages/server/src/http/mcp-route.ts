import { createMcpHandler } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { type McpAuthDeps, authenticateMcpRequest } from '../auth/mcp-auth.js';
import type { DomainDeps } from '../domain/deps.js';
import type { Logger } from '../log/logger.js';
import { createServerFactory } from '../mcp/server-factory.js';

/** The `/mcp` endpoint: the contract's auth gate, then the stateless MCP handler (no per-process session state). */
export function createMcpRoute(deps: DomainDeps, authDeps: McpAuthDeps, log: Logger) {
  const handler = createMcpHandler(createServerFactory(deps, log), {
    onerror: (error) => log.debug('mcp request rejected', { error: error.message }),
  });
  const route = async (c: Context): Promise<Response> => {
    const auth = await authenticateMcpRequest(c.req.raw, authDeps);
    if (!auth.ok) return auth.response;
    const { caller } = auth;
    const response = await handler.fetch(c.req.raw, {
      authInfo: { token: `cairn:${caller.via}:${caller.keyId ?? caller.userId}`, clientId: caller.keyId ?? caller.userId, scopes: [], extra: { caller } },
    });
    for (const [name, value] of Object.entries(auth.responseHeaders)) response.headers.set(name, value);
    return response;
  };
  return { route, close: () => handler.close() };
}

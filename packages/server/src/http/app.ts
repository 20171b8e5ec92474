import { Hono } from 'hono';
import type { Auth } from '../auth/better-auth.js';
import type { McpAuthDeps } from '../auth/mcp-auth.js';
import type { DomainDeps } from '../domain/deps.js';
import type { Logger } from '../log/logger.js';
import { createMcpRoute } from './mcp-route.js';

/** Everything the HTTP edge needs, built once by openCairn. */
export interface HttpDeps {
  domain: DomainDeps;
  auth: Auth;
  mcpAuth: McpAuthDeps;
  log: Logger;
}

/** The one HTTP app: `/mcp`, better-auth under `/api/auth`, and health. */
export function createHttpApp(deps: HttpDeps): { app: Hono; close: () => Promise<void> } {
  const app = new Hono();
  const mcp = createMcpRoute(deps.domain, deps.mcpAuth, deps.log);
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.all('/mcp', mcp.route);
  app.on(['GET', 'POST'], '/api/auth/*', (c) => deps.auth.handler(c.req.raw));
  app.onError((error, c) => {
    deps.log.error('request failed', { path: c.req.path, error: error.message });
    return c.json({ error: { code: 'internal_error', message: 'Cairn could not handle this request; the server log has the details.' } }, 500);
  });
  return { app, close: mcp.close };
}

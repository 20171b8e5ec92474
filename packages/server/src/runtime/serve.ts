import { type ServerType, serve } from '@hono/node-server';
import type { Cairn } from './open-cairn.js';

/** Starts listening; resolves once the port is bound, with the address actually used. */
export function listen(cairn: Cairn, port = cairn.config.port): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: cairn.app.fetch, hostname: cairn.config.host, port }, (info) => resolve({ server, port: info.port }));
    server.once('error', reject);
  });
}

/** Closes the listener, waiting for requests in flight. */
export function stopListening(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  });
}

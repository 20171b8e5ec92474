import { type ServerType, serve } from '@hono/node-server';
import { quietAuthContexts } from '../auth/quiet-auth-contexts.js';
import { limitHeapGrowth } from './heap-growth.js';
import { exposedGc, IdleCollection } from './idle-collection.js';
import type { Cairn } from './open-cairn.js';
import { limitYoungGeneration } from './young-generation.js';

/** Starts listening; resolves once the port is bound, with the address actually used. */
export function listen(cairn: Cairn, port = cairn.config.port): Promise<{ server: ServerType; port: number }> {
  limitHeapGrowth();
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: cairn.app.fetch, hostname: cairn.config.host, port }, (info) =>
      resolve({ server, port: info.port }),
    );
    server.once('error', reject);
    server.once('close', limitYoungGeneration(server));
    // Gives memory back to the machine once requests stop (see idle-collection.ts).
    const gc = exposedGc();
    if (gc) {
      const collection = new IdleCollection(server, gc);
      server.once('close', () => collection.stop());
    }
    // Turns promise hooks off while better-auth is idle (see quiet-auth-contexts.ts).
    const quiet = quietAuthContexts();
    server.once('close', () => void quiet.then((q) => q.stop()));
  });
}

/** Longest a shutdown waits for requests in flight before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Closes the listener, waiting for requests in flight (at most SHUTDOWN_GRACE_MS). */
export function stopListening(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    // A connection still draining a refused body (413) is waited on through timers that do not keep
    // the process alive; without this one the process could exit halfway through shutting down.
    const grace = setTimeout(() => 'closeAllConnections' in server && server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    server.close(() => {
      clearTimeout(grace);
      resolve();
    });
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  });
}

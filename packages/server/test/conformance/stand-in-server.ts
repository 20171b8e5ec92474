import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { z } from 'zod';

/** A started MCP server plus the headers a client must send to reach it. */
export interface StartedMcpServer {
  /** Origin, e.g. `http://127.0.0.1:1234`. */
  origin: string;
  /** Path of the MCP endpoint, e.g. `/mcp`. */
  mcpPath: string;
  /** Headers every request must carry (bearer token, installer user agent). */
  headers: Record<string, string>;
  close(): Promise<void>;
}

const INSTALLER_USER_AGENT = 'cairn-mcp-installer/1.0';

function createStandInMcpServer(): McpServer {
  const server = new McpServer({ name: 'cairn-stand-in', version: '0.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes the given text back.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

/** Starts a minimal stateless MCP server on 127.0.0.1 that, like Cairn, answers 401 without the bearer token and installer user agent. */
export async function startStandInServer(): Promise<StartedMcpServer> {
  const token = `cairn_tkn_${randomBytes(24).toString('base64url')}`;
  const handler = createMcpHandler(() => createStandInMcpServer());
  const app = new Hono();
  app.all('/mcp', (c) => {
    const authorized =
      c.req.header('authorization') === `Bearer ${token}` &&
      c.req.header('user-agent') === INSTALLER_USER_AGENT;
    if (!authorized) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json({ error: 'unauthorized' }, 401);
    }
    return handler.fetch(c.req.raw);
  });

  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
        resolve({ server, port: info.port }),
      );
    },
  );

  return {
    origin: `http://127.0.0.1:${port}`,
    mcpPath: '/mcp',
    headers: { Authorization: `Bearer ${token}`, 'User-Agent': INSTALLER_USER_AGENT },
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

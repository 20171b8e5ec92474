import { McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import type { Access } from '../domain/access.js';
import { loadAccess } from '../domain/access.js';
import type { Caller } from '../domain/caller.js';
import type { DomainDeps } from '../domain/deps.js';
import { mayWrite } from '../domain/key-scope.js';
import { assertNoNul } from '../domain/parse-input.js';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import { type BusyReason, busyReason } from '../errors/server-busy.js';
import type { Logger } from '../log/logger.js';
import { READ_ONLY_INSTRUCTIONS, SERVER_INSTRUCTIONS } from './instructions.js';
import { isWriteTool, refuseWriteToolCalls } from './read-only-gate.js';
import { type PreparedTool, prepareTool, type ToolContext, toolResult } from './tool-definition.js';
import { toolErrorResult } from './tool-error.js';
import { TOOLS } from './tool-list.js';

/**
 * Set by a tool whose call failed because the database is unreachable (or every connection to it
 * stayed busy), so that the `/mcp` route can answer HTTP 503 with a JSON-RPC error instead of a tool
 * result (see mcp-route.ts).
 */
export interface OutageLatch {
  tripped?: { id: string | number; busy?: BusyReason };
}

/** Server name and version reported in the initialize result. */
export const SERVER_INFO = { name: 'cairn', version: '0.1.0' };

/**
 * Builds the per-request MCP server factory. Schemas are converted here, once; each request
 * then only creates a server and registers the prepared tools, with no I/O.
 */
export function createServerFactory(deps: DomainDeps, log: Logger): McpServerFactory {
  const prepared: PreparedTool[] = TOOLS.map(prepareTool);
  const writeTools = new Set(TOOLS.filter(isWriteTool).map((t) => t.name));
  return ({ authInfo }) => {
    const caller = authInfo?.extra?.caller as Caller | undefined;
    const readOnly = !caller || !mayWrite(caller);
    const instructions = readOnly ? `${SERVER_INSTRUCTIONS}\n\n${READ_ONLY_INSTRUCTIONS}` : SERVER_INSTRUCTIONS;
    const server = new McpServer(SERVER_INFO, { instructions, capabilities: { tools: {} } });
    const outage = authInfo?.extra?.outage as OutageLatch | undefined;
    let access: Promise<Access> | undefined;
    for (const { definition, inputSchema, outputSchema } of prepared) {
      server.registerTool(
        definition.name,
        {
          title: definition.title,
          description: definition.description,
          inputSchema,
          outputSchema,
          annotations: definition.annotations,
        },
        async (input: unknown, mcpContext: { mcpReq: { id: string | number } }) => {
          if (!caller) return toolErrorResult(new Error('unauthenticated request reached a tool'), log);
          const ctx: ToolContext = { deps, caller, access: () => (access ??= loadAccess(deps, caller)) };
          try {
            assertNoNul(input, 'arguments');
            const { structured, text } = await definition.run(input, ctx);
            return toolResult(structured, text);
          } catch (error) {
            const busy = busyReason(error);
            if (outage && busy) outage.tripped = { id: mcpContext.mcpReq.id, busy };
            else if (outage && isDatabaseUnavailable(error)) outage.tripped = { id: mcpContext.mcpReq.id };
            return toolErrorResult(error, log, definition.name);
          }
        },
      );
    }
    // Registering a tool makes the SDK advertise tools.listChanged, which a stateless server can never send.
    server.server.registerCapabilities({ tools: { listChanged: false } });
    // Write tools stay listed (one tool list for every client, and the agent learns why a save fails); calling one is refused here.
    if (readOnly) refuseWriteToolCalls(server, writeTools);
    return server;
  };
}

import { type CallToolResult, type McpServer, ProtocolError } from '@modelcontextprotocol/server';
import { READ_ONLY_KEY_MESSAGE } from '../domain/key-scope.js';
import { JSONRPC_CODES } from '../errors/jsonrpc-codes.js';
import type { ToolDefinition } from './tool-definition.js';

/** Only tools annotated read-only are reads; a new tool without the annotation counts as a write (fail closed). */
export function isWriteTool(definition: ToolDefinition): boolean {
  return definition.annotations.readOnlyHint !== true;
}

type CallHandler = (request: unknown, ctx: unknown) => Promise<CallToolResult>;

/**
 * Puts the read-only rule in front of every tools/call of this server: a write tool answers a JSON-RPC
 * error (not a tool result), before its input is even validated. The SDK turns anything a tool handler
 * throws into an `isError` result, so the rule has to wrap the tools/call handler itself.
 */
export function refuseWriteToolCalls(server: McpServer, writeTools: ReadonlySet<string>): void {
  const inner = (
    server.server as unknown as { _getRequestHandler(method: string): CallHandler | undefined }
  )._getRequestHandler?.('tools/call');
  // Fail closed if an SDK upgrade moves the handler: no read-only caller may then reach any tool.
  if (typeof inner !== 'function') throw new Error('MCP SDK: cannot wrap tools/call to enforce read-only keys');
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    if (writeTools.has(request.params.name)) {
      throw new ProtocolError(JSONRPC_CODES.readOnlyKey, READ_ONLY_KEY_MESSAGE, {
        reason: 'read_only_key',
        tool: request.params.name,
      });
    }
    return inner(request, ctx);
  });
}

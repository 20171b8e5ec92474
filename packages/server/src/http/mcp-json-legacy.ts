import { type LegacyHttpHandler, type McpServerFactory, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/**
 * Serves a 2025-era (stateless) MCP request the way the SDK's own legacy leg does, a fresh server
 * from the factory per request, but answers a call with one JSON body instead of an SSE stream:
 * Cairn's tools send no progress or log messages before their result, so the stream's framing,
 * keep-alive and teardown bought nothing. Clients accept both (they must send Accept with both types).
 */
export function jsonLegacyHandler(factory: McpServerFactory): LegacyHttpHandler {
  return async (request, options) => {
    const server = await factory({ era: 'legacy', ...(options?.authInfo !== undefined && { authInfo: options.authInfo }), requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, {
        ...(options?.authInfo !== undefined && { authInfo: options.authInfo }),
        ...(options?.parsedBody !== undefined && { parsedBody: options.parsedBody }),
      });
    } finally {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    }
  };
}

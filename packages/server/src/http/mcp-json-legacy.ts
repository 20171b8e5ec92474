import {
  type LegacyHttpHandler,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/**
 * Serves a 2025-era (stateless) MCP request the way the SDK's own legacy leg does, a fresh server
 * from the factory per request, but answers a call with one JSON body instead of an SSE stream:
 * Cairn's tools send no progress or log messages before their result, so the stream's framing,
 * keep-alive and teardown bought nothing. Clients accept both (they must send Accept with both types).
 */
export function jsonLegacyHandler(factory: McpServerFactory): LegacyHttpHandler {
  return async (request, options) => {
    const server = await factory({
      era: 'legacy',
      ...(options?.authInfo !== undefined && { authInfo: options.authInfo }),
      requestInfo: request,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    let answered = false;
    try {
      const response = await transport.handleRequest(request, {
        ...(options?.authInfo !== undefined && { authInfo: options.authInfo }),
        ...(options?.parsedBody !== undefined && { parsedBody: options.parsedBody }),
      });
      answered = true;
      return response;
    } finally {
      // A JSON answer comes back once its call has finished: nothing is left running or waiting, and
      // both are garbage with the request. Closing then only built the SDK's "connection closed"
      // error, stack and all (docs/benchmarks.md); a request that failed midway is still closed.
      if (!answered) {
        transport.close().catch(() => {});
        server.close().catch(() => {});
      }
    }
  };
}

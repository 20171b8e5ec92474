/** A JSON-RPC 2.0 answer as Cairn's /mcp sends it. */
export interface RpcAnswer {
  jsonrpc: '2.0';
  id?: unknown;
  result?: { structuredContent?: unknown; content?: Array<{ type?: string; text?: string }>; isError?: boolean };
  error?: { code?: number; message?: string };
}

/** The JSON-RPC answer in a body that is plain JSON or an SSE stream (`event: message` / `data: {…}`); undefined when there is none. */
export function readRpcAnswer(contentType: string, body: string): RpcAnswer | undefined {
  const candidates = /text\/event-stream/i.test(contentType)
    ? body.split(/\r?\n\r?\n/).map((event) =>
        event
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n'),
      )
    : [body];
  for (const text of candidates) {
    try {
      const value = JSON.parse(text) as RpcAnswer;
      if (value?.jsonrpc === '2.0' && (value.result !== undefined || value.error !== undefined)) return value;
    } catch {
      // not JSON: try the next event, else not JSON-RPC at all
    }
  }
  return undefined;
}

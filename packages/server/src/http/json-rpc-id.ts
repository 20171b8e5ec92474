import { bodyRead } from './body-limits.js';

/** The id of the JSON-RPC request in the body, or null when there is none to read (batch, notification, bad JSON). */
export async function jsonRpcId(req: Request): Promise<string | number | null> {
  try {
    const bytes = bodyRead(req);
    if (!bytes && req.bodyUsed) return null;
    // Read only small bodies: this answer is a courtesy, and /mcp bodies are bounded elsewhere.
    if ((bytes?.length ?? Number(req.headers.get('content-length') ?? Infinity)) > 1024 * 1024) return null;
    const id = (JSON.parse(bytes ? new TextDecoder().decode(bytes) : await req.text()) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

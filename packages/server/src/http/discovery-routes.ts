import { createHash } from 'node:crypto';
import { type Context, Hono } from 'hono';
import {
  AI_CATALOG_MEDIA_TYPE,
  buildCatalog,
  buildServerCard,
  SERVER_CARD_MEDIA_TYPE,
  SERVER_CARD_PATH,
  type ServerCardSettings,
} from '../mcp/server-card.js';

/** CORS for public, read-only discovery documents (discovery.md, "CORS Requirements"). */
const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Expose-Headers': 'ETag',
} as const;

/** discovery.md, "Caching". */
const CACHE_CONTROL = 'public, max-age=3600';

/** One document, serialized once at start-up: the same bytes and ETag for every request and every instance. */
interface Document {
  body: string;
  etag: string;
  contentType: string;
}

function document(value: unknown, contentType: string): Document {
  const body = JSON.stringify(value);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`, contentType };
}

/**
 * MCP discovery without credentials: the Server Card at `<base>/mcp/server-card` (the location MCP
 * reserves) and at `/.well-known/mcp/server-card.json`, and the AI Catalog pointing at it at
 * `/.well-known/ai-catalog.json` and `/.well-known/mcp/catalog.json`. GET and OPTIONS only.
 */
export function createDiscoveryRoutes(settings: ServerCardSettings): Hono {
  const app = new Hono();
  const card = document(buildServerCard(settings), SERVER_CARD_MEDIA_TYPE);
  const catalog = buildCatalog(settings);
  const documents: Record<string, Document> = {
    [SERVER_CARD_PATH]: card,
    '/.well-known/mcp/server-card.json': card,
    '/.well-known/ai-catalog.json': document(catalog, AI_CATALOG_MEDIA_TYPE),
    // The path of the catalog's earlier draft (before it became an AI Catalog), still what some clients look for.
    '/.well-known/mcp/catalog.json': document(catalog, 'application/json'),
  };
  for (const [path, doc] of Object.entries(documents)) {
    app.get(path, (c) => serve(c, doc));
    app.options(
      path,
      () => new Response(null, { status: 204, headers: { ...CORS, 'Access-Control-Max-Age': '86400' } }),
    );
    app.all(path, (c) =>
      c.json(
        { error: { code: 'method_not_allowed', message: `${c.req.path} is a read-only discovery document: use GET.` } },
        405,
        { ...CORS, Allow: 'GET, HEAD, OPTIONS' },
      ),
    );
  }
  return app;
}

function serve(c: Context, doc: Document): Response {
  const headers = { ...CORS, 'Cache-Control': CACHE_CONTROL, ETag: doc.etag };
  if (matches(c.req.header('if-none-match'), doc.etag)) return new Response(null, { status: 304, headers });
  return new Response(doc.body, { status: 200, headers: { ...headers, 'Content-Type': doc.contentType } });
}

/** RFC 9110 §13.1.2: `*` or any listed tag, compared weakly. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

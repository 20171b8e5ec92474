import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import type { Auth } from '../auth/better-auth.js';
import { matchesRegisteredRedirect, registeredRedirectUris } from '../auth/oauth/clients.js';
import { precompressedVariant } from './precompressed.js';

/** The portal's build output; the same place whether the server runs from src/ (tsx) or dist/. */
export const PORTAL_DIST = fileURLToPath(new URL('../../../portal/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8',
};

/** Pages may not be framed (clickjacking) and load nothing from elsewhere. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** What the consent page's CSP needs: a client's registered redirect URIs (empty when unknown). */
export type RedirectUrisFor = (clientId: string) => Promise<string[]>;

/** Looks redirect URIs up in the OAuth provider's client table. */
export function redirectUrisFromAuth(auth: Auth): RedirectUrisFor {
  return (clientId) => registeredRedirectUris(auth, clientId);
}

/**
 * Serves the portal: its files, and index.html for every other page path (the app routes itself).
 * Without `redirectUrisFor` the consent page allows no form target but Cairn itself.
 */
export function portalRoute(options: { dist?: string; redirectUrisFor?: RedirectUrisFor } = {}) {
  const dist = options.dist ?? PORTAL_DIST;
  return async (c: Context): Promise<Response> => {
    const index = join(dist, 'index.html');
    if (!existsSync(index)) {
      return c.html('<!doctype html><title>Cairn</title><p>Cairn is running, but its portal was not built. Run <code>npm run build</code> in the repository and restart.</p>', 503, SECURITY_HEADERS);
    }
    const path = normalize(join(dist, decodeURIComponent(c.req.path)));
    const inside = path.startsWith(dist.endsWith(sep) ? dist : dist + sep);
    if (inside && existsSync(path) && statSync(path).isFile()) {
      // Vite fingerprints everything under assets/, so those never change under the same name.
      const cache = c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      const variant = precompressedVariant(path, c.req.header('accept-encoding'));
      return c.body(readFileSync(variant.file), 200, {
        'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream', 'Cache-Control': cache, Vary: 'Accept-Encoding',
        ...(variant.encoding && { 'Content-Encoding': variant.encoding }), ...SECURITY_HEADERS,
      });
    }
    // A missing asset (an old fingerprint, a source map) is a 404, not the portal's HTML.
    if (c.req.path.startsWith('/assets/')) return c.text('Not found', 404, SECURITY_HEADERS);
    return c.body(readFileSync(index), 200, { 'Content-Type': TYPES['.html']!, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS, ...(await consentPageHeaders(c, options.redirectUrisFor)) });
  };
}

/**
 * The consent form posts to Cairn, which answers 303 to the client's redirect URI; browsers check
 * form-action along that redirect, so the consent page allows that target too, but only when it is
 * one the client (client_id in the query) registered: the query itself is attacker-controlled.
 */
async function consentPageHeaders(c: Context, redirectUrisFor: RedirectUrisFor | undefined): Promise<Record<string, string>> {
  if (c.req.path !== '/oauth/consent' || !redirectUrisFor) return {};
  const target = c.req.query('redirect_uri');
  const clientId = c.req.query('client_id');
  if (!target || !clientId) return {};
  let source: string | undefined;
  try {
    const url = new URL(target);
    source = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  } catch {
    source = undefined;
  }
  if (!source || !/^[a-z][a-z0-9+.-]*:(\/\/[a-z0-9.\-\[\]:]+)?$/i.test(source)) return {};
  const registered = await redirectUrisFor(clientId).catch(() => []);
  if (!matchesRegisteredRedirect(registered, target)) return {};
  return { 'Content-Security-Policy': SECURITY_HEADERS['Content-Security-Policy'].replace("form-action 'self'", `form-action 'self' ${source}`) };
}

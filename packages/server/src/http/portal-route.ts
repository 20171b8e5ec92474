import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context } from 'hono';
import type { Auth } from '../auth/better-auth.js';
import { matchesRegisteredRedirect, registeredRedirectUris } from '../auth/oauth/clients.js';

/** The portal's build output, found through the @cairn/portal package the server depends on. */
export const PORTAL_DIST =
  join(dirname(createRequire(import.meta.url).resolve('@cairn/portal/package.json')), 'dist') + sep;

/** Pages may not be framed (clickjacking) and load nothing from elsewhere; every page Cairn serves sends them. */
export const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
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
  // Serves only what the build wrote, its .br/.gz sibling when the browser accepts one; never a dot path.
  const files = serveStatic({ root: dist, precompressed: true });
  return async (c: Context): Promise<Response> => {
    const index = join(dist, 'index.html');
    if (!existsSync(index)) {
      return c.html(
        '<!doctype html><title>Cairn</title><p>Cairn is running, but its portal was not built. Run <code>npm run build</code> in the repository and restart.</p>',
        503,
        SECURITY_HEADERS,
      );
    }
    if (c.req.path !== '/' && c.req.path !== '/index.html') {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
      // Vite fingerprints everything under assets/, so those never change under the same name.
      c.header('Cache-Control', c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      const served = await files(c, async () => {});
      if (served) {
        // serveStatic names Vary only on a compressed answer; caches must know the plain one depends on it too.
        if (!served.headers.has('vary')) served.headers.set('Vary', 'Accept-Encoding');
        return served;
      }
    }
    // A missing asset (an old fingerprint, a source map) is a 404, not the portal's HTML.
    if (c.req.path.startsWith('/assets/'))
      return c.text('Not found', 404, { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' });
    return c.body(readFileSync(index), 200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-cache',
      ...SECURITY_HEADERS,
      ...(await consentPageHeaders(c, options.redirectUrisFor)),
    });
  };
}

/**
 * The consent form posts to Cairn, which answers 303 to the client's redirect URI; browsers check
 * form-action along that redirect, so the consent page allows that target too, but only when it is
 * one the client (client_id in the query) registered: the query itself is attacker-controlled.
 */
async function consentPageHeaders(
  c: Context,
  redirectUrisFor: RedirectUrisFor | undefined,
): Promise<Record<string, string>> {
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
  if (!source || !/^[a-z][a-z0-9+.-]*:(\/\/[a-z0-9.\-[\]:]+)?$/i.test(source)) return {};
  const registered = await redirectUrisFor(clientId).catch(() => []);
  if (!matchesRegisteredRedirect(registered, target)) return {};
  return {
    'Content-Security-Policy': SECURITY_HEADERS['Content-Security-Policy'].replace(
      "form-action 'self'",
      `form-action 'self' ${source}`,
    ),
  };
}

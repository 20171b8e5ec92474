import type { MiddlewareHandler } from 'hono';
import type { KeyVerifier } from '../../auth/api-keys/key-verifier.js';
import type { Auth } from '../../auth/better-auth.js';
import { callerForApiKey, readBearer, unusableHeader } from '../../auth/credentials.js';
import type { Caller } from '../../domain/caller.js';
import { assertMayWrite } from '../../domain/key-scope.js';
import { CairnError } from '../../errors/cairn-error.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Hono variables set by apiAuth. */
export type ApiEnv = { Variables: { caller: Caller } };

/**
 * Authenticates a JSON API request: an API key as `Authorization: Bearer …` (scripts), or a
 * portal session cookie. The installer User-Agent rule is the MCP endpoint's, not this API's.
 */
export function apiAuth(auth: Auth, keys: KeyVerifier, portalOrigin: string): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const header = readBearer(c.req.header('authorization'));
    if (header.kind === 'token') {
      c.set('caller', await callerForApiKey(keys, header.token, c.req.header('user-agent') ?? null));
      return next();
    }
    if (header.kind !== 'absent') throw unusableHeader(header);
    const session = await auth.api.getSession({ headers: c.req.raw.headers });
    if (!session)
      throw new CairnError(
        'unauthenticated',
        'Sign in to the Cairn portal, or send an API key as "Authorization: Bearer cairn_tkn_…".',
      );
    // CSRF: a write riding on the session cookie must come from the portal's own origin.
    if (!SAFE_METHODS.has(c.req.method) && c.req.header('origin') !== portalOrigin) {
      throw new CairnError(
        'forbidden',
        'This change must come from the Cairn portal itself (the Origin header did not match); reload the portal and try again.',
      );
    }
    // Provenance names the client; for a signed-in browser that is the portal, not the browser's User-Agent.
    c.set('caller', {
      userId: session.user.id,
      client: 'cairn-portal',
      via: 'session',
      scope: 'read-write',
      sessionId: session.session.id,
    });
    return next();
  };
}

/**
 * The JSON API's one read-only gate: a read-scoped key may use the safe methods only; any other
 * method answers 403 with the message that says how to get a read-write key (before the body is read).
 */
export function refuseWritesForReadOnlyKeys(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (!SAFE_METHODS.has(c.req.method)) assertMayWrite(c.get('caller'));
    return next();
  };
}

/**
 * The signed-in portal user, or 403: credentials (API keys, setup codes, invitations, OAuth grants)
 * and access (teams, roles) are managed only from a portal session or the operator's CLI, so a
 * leaked key cannot mint new credentials that outlive its revocation. `where` names the portal page.
 */
export function requireSession(c: { get(key: 'caller'): Caller }, where: string): string {
  const caller = c.get('caller');
  if (caller.via !== 'session') {
    throw new CairnError(
      'forbidden',
      `An API key cannot do this: credentials and access are managed only when signed in to the Cairn portal (${where}) or with the cairn CLI on the server.`,
    );
  }
  return caller.userId;
}

import type { MiddlewareHandler } from 'hono';
import type { Auth } from '../auth/better-auth.js';
import { AUTH_BASE_PATH } from '../auth/oauth/oauth-options.js';
import { audit } from '../domain/audit.js';
import type { DomainDeps } from '../domain/deps.js';
import { accountIn, MAX_SIGN_IN_BODY, readCapped } from './rate-limit/auth-limits.js';
import { isEndpoint } from './rate-limit/counted-attempt.js';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

/**
 * Records portal sign-ins and failed sign-ins (better-auth's `/sign-in/email`), with the account's
 * email as typed (only when it looks like one) and the browser's User-Agent; never the password.
 * A sign-in the limits refuse (429) is not recorded: the failures that reached the limit are, and a
 * flood of refused attempts must not fill the trail.
 */
export function auditSignIns(deps: DomainDeps): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST' || !isEndpoint(new URL(c.req.url).pathname, `${AUTH_BASE_PATH}/sign-in/email`))
      return next();
    const body = await readCapped(c.req.raw, MAX_SIGN_IN_BODY);
    const typed = body && (await accountIn(body, c.req.header('content-type') ?? ''));
    const email = typed && EMAIL.test(typed) ? typed : null;
    await next();
    const status = c.res.status;
    // A server error (an outage) says nothing about the credentials.
    if (status >= 500 || status === 429) return;
    const outcome = status < 400 ? 'success' : 'failure';
    audit(deps, {
      kind: outcome === 'success' ? 'auth.signed_in' : 'auth.sign_in_failed',
      actor: { email },
      credential: { type: 'session', id: null, name: null },
      client: c.req.header('user-agent') ?? null,
      target: { type: 'account', name: email ?? '(not an email address)' },
      outcome,
    });
  };
}

/**
 * Records an OAuth grant once the consent succeeded: who (from the session cookie, looked up after the
 * answer, off its path) let which client in. Never waits, never throws.
 */
export function auditOAuthGrant(deps: DomainDeps, auth: Auth, headers: Headers, oauthQuery: string): void {
  const clientId = new URLSearchParams(oauthQuery).get('client_id')?.slice(0, 200) ?? null;
  void auth.api
    .getSession({ headers })
    .then((session) => {
      if (!session) return;
      audit(deps, {
        kind: 'oauth.granted',
        by: { userId: session.user.id, client: 'cairn-portal', via: 'session', scope: 'read-write' },
        target: {
          type: 'oauth_client',
          id: clientId,
          name: new URLSearchParams(oauthQuery).get('scope')?.slice(0, 100) ?? null,
        },
      });
    })
    .catch(() => {});
}

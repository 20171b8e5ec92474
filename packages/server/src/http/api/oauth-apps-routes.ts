import { Hono } from 'hono';
import type { Auth } from '../../auth/better-auth.js';
import type { OAuthUsage } from '../../auth/oauth/oauth-usage.js';
import { audit } from '../../domain/audit.js';
import { listConnectedApps, oauthClientInfo, revokeConnectedApp } from '../../domain/connected-apps.js';
import type { DomainDeps } from '../../domain/deps.js';
import { type ApiEnv, requireSession } from './api-auth.js';

/**
 * `/api/v1/oauth/*`: what the consent page shows about a client, and the user's connected OAuth
 * apps with revocation. Session only: an API key or OAuth token must not manage grants.
 */
export function createOAuthAppsRoutes(auth: Auth, deps: DomainDeps, usage?: OAuthUsage): Hono<ApiEnv> {
  const routes = new Hono<ApiEnv>();
  const sessionUser = (c: { get(key: 'caller'): ApiEnv['Variables']['caller'] }) =>
    requireSession(c, 'Settings > Connected apps');
  routes.get('/oauth/clients/:clientId', async (c) => {
    sessionUser(c);
    return c.json({ client: await oauthClientInfo(auth, c.req.param('clientId')) });
  });
  routes.get('/oauth/apps', async (c) => {
    const userId = sessionUser(c);
    const stored = await deps.store.listOAuthUse(userId);
    return c.json({
      apps: await listConnectedApps(auth, userId, {
        stored,
        pending: (clientId) => usage?.pendingUse(userId, clientId),
      }),
    });
  });
  routes.delete('/oauth/apps/:clientId', async (c) => {
    const revoked = await revokeConnectedApp(auth, sessionUser(c), c.req.param('clientId'));
    audit(deps, { kind: 'oauth.revoked', by: c.get('caller'), target: { type: 'oauth_client', id: revoked.clientId } });
    return c.json({ revoked });
  });
  return routes;
}

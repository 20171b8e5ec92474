import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { KeyVerifier } from '../auth/api-keys/key-verifier.js';
import { isAllowedAuthRoute } from '../auth/auth-routes.js';
import type { Auth } from '../auth/better-auth.js';
import type { McpAuthDeps } from '../auth/mcp-auth.js';
import type { OverloadSettings } from '../config/load-config.js';
import type { DomainDeps } from '../domain/deps.js';
import { CairnError, httpStatusFor } from '../errors/cairn-error.js';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import { busyReason } from '../errors/server-busy.js';
import type { Logger } from '../log/logger.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import { Admission } from './admission/admission.js';
import { admissionControl } from './admission/admission-middleware.js';
import { busyJson } from './admission/busy-response.js';
import { createApiRoutes } from './api/api-routes.js';
import { auditSignIns } from './audit-auth-events.js';
import { bodyLimits } from './body-limits.js';
import { type ClientAddressOf, withClientAddress } from './client-address.js';
import { DESKTOP_BUNDLE_PATH, desktopBundleRoute } from './desktop-bundle-route.js';
import { createDiscoveryRoutes } from './discovery-routes.js';
import { InFlight } from './in-flight.js';
import { installerRoute } from './install-route.js';
import { createMcpRoute } from './mcp-route.js';
import { createOAuthRoutes } from './oauth-routes.js';
import { portalRoute, redirectUrisFromAuth } from './portal-route.js';
import { authRouteLimits } from './rate-limit/auth-limits.js';
import { type Readiness, readinessRoute, unavailableIfDatabaseDown } from './readiness.js';
import { securityHeaders } from './security-headers.js';
import { unavailableJsonResponse } from './unavailable-response.js';
import { urlGuard } from './url-guard.js';

/** Longest shutdown waits for requests still being handled before the database closes under them. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Everything the HTTP edge needs, built once by openCairn. */
export interface HttpDeps {
  domain: DomainDeps;
  auth: Auth;
  mcpAuth: McpAuthDeps;
  keys: KeyVerifier;
  baseUrl: string;
  oauthAllowLoopback: boolean;
  oauthClientSchemes: string[];
  limits: RateLimits;
  clientAddress: ClientAddressOf;
  installerPublished: boolean;
  /** CAIRN_PLUGIN_MARKETPLACE, shown by the Connect dialog; unset: the installer's own copy. */
  pluginMarketplace?: string | undefined;
  /** The client_ids whose metadata documents the operator pinned (CAIRN_OAUTH_PINNED_CLIENTS), for the Connect dialog. */
  oauthPinnedClients?: readonly string[];
  readiness: Readiness;
  log: Logger;
  /** The bound on work in progress (docs/overload.md). */
  overload: OverloadSettings;
}

/** The one HTTP app: `/mcp` and its Server Card, the JSON API under `/api/v1`, better-auth under `/api/auth`, and health. */
export function createHttpApp(deps: HttpDeps): { app: Hono; admission: Admission; close: () => Promise<void> } {
  const app = new Hono();
  const mcp = createMcpRoute({
    domain: deps.domain,
    mcpAuth: deps.mcpAuth,
    log: deps.log,
    requestLimit: deps.limits.requestsPerCredential,
  });
  const inFlight = new InFlight();
  // Outermost: every answer, the refusals of the guards below included, carries them.
  app.use('*', securityHeaders());
  app.use('*', inFlight.middleware);
  // Overload first: what the queue would refuse anyway is refused before anything is read.
  const admission = new Admission(deps.overload);
  const admitted = admissionControl(admission, deps.clientAddress, deps.log);
  app.use('*', admitted.early);
  // Size and shape first: nothing else reads a body that is too big, too deep or malformed.
  app.use('*', urlGuard());
  app.use('*', bodyLimits());
  // After the body is read (a slow upload must not hold a turn), before any work: /healthz, /readyz,
  // discovery, downloads and portal files are never queued.
  app.use('*', admitted.turn);
  // Liveness (the process answers) and readiness (its database answers): see docs/deployment.md, "Load balancers".
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', readinessRoute(deps.readiness));
  app.get('/install/cairn-mcp-installer.tgz', installerRoute());
  app.get(DESKTOP_BUNDLE_PATH, desktopBundleRoute(deps.baseUrl));
  app.all('/mcp', mcp.route);
  // MCP discovery: the Server Card and the catalog pointing at it, public and read-only (docs/mcp.md, "Discovery").
  app.route(
    '/',
    createDiscoveryRoutes({ baseUrl: deps.baseUrl, requireUserAgent: deps.mcpAuth.config.requireUserAgent }),
  );
  app.use('/api/auth/*', auditSignIns(deps.domain), authRouteLimits(deps.limits, deps.clientAddress));
  // Before better-auth's catch-all and the JSON 404 for /.well-known/*.
  app.route(
    '/',
    createOAuthRoutes({
      auth: deps.auth,
      clientAddress: deps.clientAddress,
      baseUrl: deps.baseUrl,
      allowLoopback: deps.oauthAllowLoopback,
      clientSchemes: deps.oauthClientSchemes,
      domain: deps.domain,
    }),
  );
  // Only the allow-listed better-auth endpoints; the rest fall through to the JSON 404 below.
  app.all('/api/auth/*', async (c, next) =>
    isAllowedAuthRoute(c.req.method, new URL(c.req.url).pathname)
      ? unavailableIfDatabaseDown(
          await deps.auth.handler(withClientAddress(c.req.raw, deps.clientAddress(c))),
          deps.readiness,
        )
      : next(),
  );
  app.route(
    '/api/v1',
    createApiRoutes({
      domain: deps.domain,
      auth: deps.auth,
      keys: deps.keys,
      baseUrl: deps.baseUrl,
      limits: deps.limits,
      clientAddress: deps.clientAddress,
      installerPublished: deps.installerPublished,
      oauthLoopbackAllowed: deps.oauthAllowLoopback,
      oauthUsage: deps.mcpAuth.oauthUsage,
      pluginMarketplace: deps.pluginMarketplace,
      oauthPinnedClients: deps.oauthPinnedClients,
    }),
  );
  // Unknown API and discovery paths answer JSON 404s; they must never fall through to the portal's HTML.
  for (const prefix of ['/api/*', '/.well-known/*', '/install/*']) {
    app.all(prefix, (c) => c.json({ error: { code: 'not_found', message: `Nothing at ${c.req.path}.` } }, 404));
  }
  // Last: every other GET is a portal page (the API, /mcp and /install are matched above).
  app.get('*', portalRoute({ redirectUrisFor: redirectUrisFromAuth(deps.auth) }));
  app.onError(async (error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    if (error instanceof CairnError) {
      return c.json(
        { error: { code: error.code, message: error.message, ...(error.details && { details: error.details }) } },
        httpStatusFor[error.code] as 400,
      );
    }
    if (error instanceof SyntaxError)
      return c.json({ error: { code: 'invalid_input', message: 'The request body is not valid JSON.' } }, 400);
    // Every database connection in use, or another process's lock on the SQLite file, while the database answers: not an outage.
    const busy = busyReason(error);
    if (busy) return busyJson(busy.retryAfterSeconds, busy.why);
    // better-auth rethrows some database failures as its own "500" without the cause: while the database
    // does not answer, an unexpected error is the outage's 503.
    if (isDatabaseUnavailable(error) || !(await deps.readiness.ready())) return unavailableJsonResponse();
    deps.log.error('request failed', { path: c.req.path, error: error.message });
    return c.json(
      {
        error: {
          code: 'internal_error',
          message: 'Cairn could not handle this request; the server log has the details.',
        },
      },
      500,
    );
  });
  return {
    app,
    admission,
    close: async () => {
      await inFlight.drained(SHUTDOWN_GRACE_MS);
      await mcp.close();
    },
  };
}

import { AUTH_BASE_PATH } from './oauth/oauth-options.js';

/** One better-auth endpoint Cairn lets the outside world reach, and why. */
export interface AuthRoute {
  method: 'GET' | 'POST';
  /** Below AUTH_BASE_PATH, exactly as better-auth names it. */
  path: string;
  why: string;
}

/**
 * The better-auth endpoints reachable under /api/auth. Everything else better-auth has (sign-up,
 * organization and team management, password changes, OAuth client admin…) answers 404: users,
 * organizations and grants are made through Cairn's own routes, which check invitations and roles.
 */
export const AUTH_ROUTES: readonly AuthRoute[] = [
  { method: 'POST', path: '/sign-in/email', why: 'the portal sign-in page' },
  { method: 'POST', path: '/sign-out', why: 'the portal Sign out button' },
  {
    method: 'GET',
    path: '/oauth2/authorize',
    why: 'OAuth authorization endpoint (Cairn adds the default resource in oauth-routes.ts)',
  },
  {
    method: 'POST',
    path: '/oauth2/consent',
    why: 'the consent decision; the portal consent form reaches it through /oauth/consent',
  },
  {
    method: 'POST',
    path: '/oauth2/token',
    why: 'OAuth token endpoint: code and refresh grants (wrapped in oauth-routes.ts)',
  },
  {
    method: 'POST',
    path: '/oauth2/register',
    why: 'dynamic client registration for MCP clients (policy in oauth-routes.ts)',
  },
  { method: 'POST', path: '/oauth2/revoke', why: 'RFC 7009 token revocation, advertised in the server metadata' },
  {
    method: 'GET',
    path: '/error',
    why: 'where better-auth sends a browser when an authorize request cannot go back to the app',
  },
  {
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    why: 'RFC 8414 metadata at the issuer path, served by Cairn itself (oauth-routes.ts)',
  },
];

const allowed = new Set(AUTH_ROUTES.map((r) => `${r.method} ${AUTH_BASE_PATH}${r.path}`));

/**
 * True when this request may go to better-auth. `pathname` is the raw request path (not decoded),
 * so what is checked is exactly what better-auth routes on.
 */
export function isAllowedAuthRoute(method: string, pathname: string): boolean {
  return allowed.has(`${method} ${pathname}`);
}

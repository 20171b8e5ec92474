import { createHash } from 'node:crypto';
import type { OAuthOptions, oauthProvider } from '@better-auth/oauth-provider';
import { type CimdSettings, cimdDiscovery } from './cimd.js';

/** The scopes an OAuth client may ask for: `mcp` reaches the MCP tools, `offline_access` adds a refresh token. */
export const OAUTH_SCOPES = ['mcp', 'offline_access'] as const;

/** Where better-auth mounts its endpoints; the OAuth issuer is `<base>` + this. */
export const AUTH_BASE_PATH = '/api/auth';

/** The portal pages the authorization endpoint sends a browser to. */
export const OAUTH_PAGES = { login: '/signin', consent: '/oauth/consent' } as const;

/** The RFC 8707 resource (audience) every access token is bound to. */
export function mcpResource(baseUrl: string): string {
  return `${baseUrl}/mcp`;
}

/** The OAuth issuer: better-auth's base URL. */
export function oauthIssuer(baseUrl: string): string {
  return `${baseUrl}${AUTH_BASE_PATH}`;
}

/** How tokens and codes are stored: a SHA-256 digest, so the /mcp gate can look a token up without the plugin. */
export function hashOAuthToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Options for better-auth's OAuth provider, as Cairn runs it. */
export function oauthProviderOptions(baseUrl: string, cimd: CimdSettings = {}): Parameters<typeof oauthProvider>[0] {
  const resource = mcpResource(baseUrl);
  const options: Parameters<typeof oauthProvider>[0] = {
    loginPage: OAUTH_PAGES.login,
    consentPage: OAUTH_PAGES.consent,
    scopes: [...OAUTH_SCOPES],
    // Opaque tokens live in the database, so revoking a grant stops its tokens at once (a JWT would live on).
    disableJwtPlugin: true,
    storeTokens: { hash: hashOAuthToken },
    grantTypes: ['authorization_code', 'refresh_token'],
    resources: [resource],
    clientRegistrationDefaultResources: [resource],
    allowDynamicClientRegistration: true,
    allowUnauthenticatedClientRegistration: true,
    codeExpiresIn: 600,
    refreshTokenReuseInterval: 0,
    // Client ID Metadata Documents: pinned by the operator, or fetched by Cairn through its SSRF guard (safe-fetch.ts), never by the plugin.
    extensions: [{ clientDiscovery: cimdDiscovery(() => options as OAuthOptions<any>, cimd) }],
  };
  return options;
}

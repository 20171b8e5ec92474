import { INSTALLER_USER_AGENT } from '@cairn/contract';
import type { CairnConfig } from '../config/load-config.js';
import type { Caller } from '../domain/caller.js';
import type { Logger } from '../log/logger.js';
import type { KeyVerifier } from './api-keys/key-verifier.js';
import {
  CredentialRefusal,
  callerForApiKey,
  invalidCredentialMessage,
  readBearer,
  unusableHeader,
} from './credentials.js';
import { MCP_SCOPE, type OAuthTokenVerifier } from './oauth/access-tokens.js';
import type { OAuthUsage } from './oauth/oauth-usage.js';

export { INSTALLER_USER_AGENT };

const INSTALLER_USER_AGENT_PATTERN = /^cairn-mcp-installer\/1\.\d+(\s|$)/;

/** The outcome of the gate in front of `/mcp`: a caller to serve, or why it is refused (http/ answers it). */
export type McpAuthResult =
  | { ok: true; caller: Caller; responseHeaders: Record<string, string> }
  | { ok: false; refusal: CredentialRefusal };

/** What the gate needs; built once at start-up. */
export interface McpAuthDeps {
  config: Pick<
    CairnConfig,
    'baseUrl' | 'requireUserAgent' | 'allowLegacyApiKeyHeader' | 'allowedHosts' | 'allowedOrigins'
  >;
  keys: KeyVerifier;
  /** Checks OAuth access tokens; without it only API keys are accepted. */
  oauth?: OAuthTokenVerifier;
  /** Records which client used each OAuth grant. */
  oauthUsage?: OAuthUsage;
  log: Logger;
}

/**
 * Applies the API-key contract to a request for `/mcp` (after http/'s DNS-rebinding checks): the
 * Authorization header (Bearer only; read by auth/credentials.ts like every door), the User-Agent
 * rule, and the legacy `API_KEY` header.
 */
export async function authenticateMcpRequest(req: Request, deps: McpAuthDeps): Promise<McpAuthResult> {
  try {
    return await admit(req, deps);
  } catch (error) {
    if (error instanceof CredentialRefusal) return { ok: false, refusal: error };
    throw error;
  }
}

async function admit(req: Request, deps: McpAuthDeps): Promise<McpAuthResult & { ok: true }> {
  const userAgent = req.headers.get('user-agent');
  const header = readBearer(req.headers.get('authorization'));
  if (header.kind === 'token') {
    if (deps.oauth && !header.isApiKey)
      return { ok: true, caller: await callerForOAuthToken(header.token, userAgent, deps.oauth), responseHeaders: {} };
    // Every API-key client sends the installer User-Agent: the client named at its last initialize says more.
    const caller = await callerForApiKey(deps.keys, header.token, userAgent, {
      admit: () => requireInstallerUserAgent(deps, userAgent),
    });
    return { ok: true, caller, responseHeaders: {} };
  }
  if (header.kind !== 'absent') throw unusableHeader(header);

  const legacyKey = req.headers.get('api_key');
  if (legacyKey !== null) {
    if (!deps.config.allowLegacyApiKeyHeader) {
      throw new CredentialRefusal(
        401,
        'invalid_request',
        `The API_KEY header is no longer accepted here. Send "Authorization: Bearer <key>" and "User-Agent: ${INSTALLER_USER_AGENT}" instead.`,
      );
    }
    const caller = await callerForApiKey(deps.keys, legacyKey.trim(), userAgent, { via: 'legacy_api_key' });
    deps.log.warn('legacy API_KEY header used; move this client to Authorization: Bearer', {
      keyId: caller.keyId,
      client: userAgent?.slice(0, 80) ?? null,
    });
    return {
      ok: true,
      caller,
      responseHeaders: {
        Deprecation: 'true',
        Warning: `299 - "The API_KEY header is deprecated; send Authorization: Bearer <key> and User-Agent: ${INSTALLER_USER_AGENT}"`,
      },
    };
  }
  throw new CredentialRefusal(
    401,
    undefined,
    `Authentication required. Send "Authorization: Bearer <API key>" with "User-Agent: ${INSTALLER_USER_AGENT}", or connect with OAuth.`,
  );
}

function requireInstallerUserAgent(deps: McpAuthDeps, userAgent: string | null): void {
  if (!deps.config.requireUserAgent || INSTALLER_USER_AGENT_PATTERN.test(userAgent ?? '')) return;
  throw new CredentialRefusal(
    403,
    undefined,
    `This API key must be sent with the header "User-Agent: ${INSTALLER_USER_AGENT}" (got ${userAgent ? `"${userAgent.slice(0, 80)}"` : 'none'}). Add that header to the MCP entry, or re-run: npx cairn-mcp-installer@latest --client <your client>.`,
  );
}

// OAuth clients are browsers' agents, not the installer: the User-Agent rule is for API keys only.
async function callerForOAuthToken(
  token: string,
  userAgent: string | null,
  oauth: OAuthTokenVerifier,
): Promise<Caller> {
  const check = await oauth.verify(token);
  if (!check.ok) {
    // Only a genuine token that ran out is told so (the client should refresh); every other refusal
    // shares the API-key answer, so a response never reveals which credentials exist.
    const message =
      check.reason === 'expired'
        ? 'The OAuth access token has expired. Refresh it, or sign in to Cairn again in the browser (for unattended clients use an API key instead).'
        : invalidCredentialMessage();
    throw new CredentialRefusal(401, 'invalid_token', message);
  }
  if (!check.grant.scopes.includes(MCP_SCOPE)) {
    // RFC 6750 §3.1: a genuine token without the needed scope is a 403 insufficient_scope, naming the scope.
    throw new CredentialRefusal(
      403,
      'insufficient_scope',
      `This OAuth token was not granted the "${MCP_SCOPE}" scope, which the Cairn MCP tools need. Reconnect the client and allow access when Cairn asks.`,
    );
  }
  // The "mcp" scope grants what the user may do; narrower OAuth scopes would map to "read" here.
  return {
    userId: check.grant.userId,
    client: userAgent,
    via: 'oauth',
    oauthClientId: check.grant.clientId,
    scope: 'read-write',
  };
}

/** The URL of the protected-resource metadata that 401 answers point to. */
export function resourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

import { hostHeaderValidationResponse, originValidationResponse } from '@modelcontextprotocol/server';
import type { CairnConfig } from '../config/load-config.js';
import type { Caller } from '../domain/caller.js';
import type { Logger } from '../log/logger.js';
import type { KeyVerifier } from './api-keys/key-verifier.js';
import { KEY_PREFIX } from './api-keys/key-format.js';
import { MCP_SCOPE, type OAuthTokenVerifier } from './oauth/access-tokens.js';
import { OAUTH_SCOPES } from './oauth/oauth-options.js';

/** The User-Agent the contract requires beside an API key (spec parts 2 and 5). */
export const INSTALLER_USER_AGENT = 'cairn-mcp-installer/1.0';
const INSTALLER_USER_AGENT_PATTERN = /^cairn-mcp-installer\/1\.\d+(\s|$)/;

/** The outcome of the gate in front of `/mcp`: a caller to serve, or the response that refuses. */
export type McpAuthResult = { ok: true; caller: Caller; responseHeaders: Record<string, string> } | { ok: false; response: Response };

/** What the gate needs; built once at start-up. */
export interface McpAuthDeps {
  config: Pick<CairnConfig, 'baseUrl' | 'requireUserAgent' | 'allowLegacyApiKeyHeader' | 'allowedHosts' | 'allowedOrigins'>;
  keys: KeyVerifier;
  /** Checks OAuth access tokens; without it only API keys are accepted. */
  oauth?: OAuthTokenVerifier;
  log: Logger;
}

/**
 * Applies the API-key contract to a request for `/mcp`: DNS-rebinding checks, then the
 * Authorization header (Bearer only), the User-Agent rule, and the legacy `API_KEY` header.
 */
export async function authenticateMcpRequest(req: Request, deps: McpAuthDeps): Promise<McpAuthResult> {
  const rebinding = hostHeaderValidationResponse(req, deps.config.allowedHosts) ?? originValidationResponse(req, deps.config.allowedOrigins);
  if (rebinding) return { ok: false, response: rebinding };

  const authorization = req.headers.get('authorization');
  const userAgent = req.headers.get('user-agent');
  if (authorization !== null) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    const unexpanded = /\$\{([^}]*)\}/.exec(authorization);
    if (unexpanded || /^(Bearer)?\s*$/i.test(authorization)) {
      // The bridge entry's classic mistake (spec part 2, rule 2): env name and ${…} reference differ.
      const what = unexpanded ? `holds the unexpanded reference \${${unexpanded[1]}}` : 'carries no key';
      return refuse(
        deps,
        401,
        'invalid_request',
        `The Authorization header ${what}. In the bridge entry, the variable named in "Authorization:\${AUTH_HEADER}" must be set under "env" with exactly the same name (AUTH_HEADER = "Bearer cairn_tkn_…").`,
      );
    }
    if (!match) {
      return refuse(deps, 401, 'invalid_request', 'The Authorization header must be "Bearer <API key>": the "Bearer " prefix is required. Send Authorization: Bearer cairn_tkn_…');
    }
    const token = match[1]!;
    if (deps.oauth && !token.startsWith(KEY_PREFIX)) return authenticateOAuth(token, userAgent, deps, deps.oauth);
    const record = await deps.keys.verify(token);
    if (!record) return refuse(deps, 401, 'invalid_token', invalidKeyMessage());
    if (deps.config.requireUserAgent && !INSTALLER_USER_AGENT_PATTERN.test(userAgent ?? '')) {
      return refuse(
        deps,
        403,
        undefined,
        `This API key must be sent with the header "User-Agent: ${INSTALLER_USER_AGENT}" (got ${userAgent ? `"${userAgent.slice(0, 80)}"` : 'none'}). Add that header to the MCP entry, or re-run: npx cairn-mcp-installer@latest --client <your client>.`,
      );
    }
    deps.keys.noteUse(record.id, userAgent);
    return { ok: true, caller: { userId: record.userId, client: userAgent, via: 'api_key', keyId: record.id, scope: record.scope }, responseHeaders: {} };
  }

  const legacyKey = req.headers.get('api_key');
  if (legacyKey !== null) {
    if (!deps.config.allowLegacyApiKeyHeader) {
      return refuse(deps, 401, 'invalid_request', `The API_KEY header is no longer accepted here. Send "Authorization: Bearer <key>" and "User-Agent: ${INSTALLER_USER_AGENT}" instead.`);
    }
    const record = await deps.keys.verify(legacyKey.trim());
    if (!record) return refuse(deps, 401, 'invalid_token', invalidKeyMessage());
    deps.log.warn('legacy API_KEY header used; move this client to Authorization: Bearer', { keyId: record.id, client: userAgent?.slice(0, 80) ?? null });
    deps.keys.noteUse(record.id, userAgent);
    return {
      ok: true,
      caller: { userId: record.userId, client: userAgent, via: 'legacy_api_key', keyId: record.id, scope: record.scope },
      responseHeaders: {
        Deprecation: 'true',
        Warning: `299 - "The API_KEY header is deprecated; send Authorization: Bearer <key> and User-Agent: ${INSTALLER_USER_AGENT}"`,
      },
    };
  }

  return refuse(deps, 401, undefined, `Authentication required. Send "Authorization: Bearer <API key>" with "User-Agent: ${INSTALLER_USER_AGENT}", or connect with OAuth.`);
}

// OAuth clients are browsers' agents, not the installer: the User-Agent rule is for API keys only.
async function authenticateOAuth(token: string, userAgent: string | null, deps: McpAuthDeps, oauth: OAuthTokenVerifier): Promise<McpAuthResult> {
  const check = await oauth.verify(token);
  if (!check.ok) {
    // Only a genuine token that ran out is told so (the client should refresh); every other refusal
    // shares the API-key answer, so a response never reveals which credentials exist.
    const message =
      check.reason === 'expired'
        ? 'The OAuth access token has expired. Refresh it, or sign in to Cairn again in the browser (for unattended clients use an API key instead).'
        : invalidKeyMessage();
    return refuse(deps, 401, 'invalid_token', message);
  }
  if (!check.grant.scopes.includes(MCP_SCOPE)) {
    // RFC 6750 §3.1: a genuine token without the needed scope is a 403 insufficient_scope, naming the scope.
    return refuse(deps, 403, 'insufficient_scope', `This OAuth token was not granted the "${MCP_SCOPE}" scope, which the Cairn MCP tools need. Reconnect the client and allow access when Cairn asks.`);
  }
  // The "mcp" scope grants what the user may do; narrower OAuth scopes would map to "read" here.
  return { ok: true, caller: { userId: check.grant.userId, client: userAgent, via: 'oauth', scope: 'read-write' }, responseHeaders: {} };
}

/** The URL of the protected-resource metadata that 401 answers point to. */
export function resourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

function invalidKeyMessage(): string {
  // One message for unknown, revoked and malformed keys and tokens: the answer must not reveal which.
  return `The API key is not valid (it may have been revoked or mistyped). Keys start with "${KEY_PREFIX}". Generate a new one in the Cairn portal under Settings > API Keys > Generate API key. Connected with OAuth? Reconnect the client to sign in again.`;
}

function refuse(deps: McpAuthDeps, status: 401 | 403, error: string | undefined, message: string): McpAuthResult {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (status === 401 || error === 'insufficient_scope') {
    const scope = error === 'insufficient_scope' ? MCP_SCOPE : OAUTH_SCOPES.join(' ');
    const params = [`resource_metadata="${resourceMetadataUrl(deps.config.baseUrl)}"`, `scope="${scope}"`];
    // Header values must be printable ASCII (RFC 6750 error-description): no quotes, backslashes or "…".
    if (error) params.push(`error="${error}"`, `error_description="${message.replace(/…/g, '...').replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '')}"`);
    headers['WWW-Authenticate'] = `Bearer ${params.join(', ')}`;
  }
  const body = { jsonrpc: '2.0', error: { code: -32001, message }, id: null };
  return { ok: false, response: new Response(JSON.stringify(body), { status, headers }) };
}

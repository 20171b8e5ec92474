import { hostHeaderValidationResponse, originValidationResponse } from '@modelcontextprotocol/server';
import type { CredentialRefusal } from '../auth/credentials.js';
import { resourceMetadataUrl } from '../auth/mcp-auth.js';
import { MCP_SCOPE } from '../auth/oauth/access-tokens.js';
import { OAUTH_SCOPES } from '../auth/oauth/oauth-options.js';
import type { CairnConfig } from '../config/load-config.js';
import { JSONRPC_CODES } from '../errors/jsonrpc-codes.js';

/** The DNS-rebinding checks in front of `/mcp`: the SDK's refusal when Host or Origin is not allowed. */
export function rebindingRefusal(req: Request, config: Pick<CairnConfig, 'allowedHosts' | 'allowedOrigins'>) {
  return hostHeaderValidationResponse(req, config.allowedHosts) ?? originValidationResponse(req, config.allowedOrigins);
}

/** A refusal as the MCP door answers it: a JSON-RPC error, with the OAuth challenge on 401 and insufficient_scope. */
export function refusalResponse(baseUrl: string, refusal: CredentialRefusal): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const error = refusal.oauthError;
  if (refusal.status === 401 || error === 'insufficient_scope') {
    const scope = error === 'insufficient_scope' ? MCP_SCOPE : OAUTH_SCOPES.join(' ');
    const params = [`resource_metadata="${resourceMetadataUrl(baseUrl)}"`, `scope="${scope}"`];
    // Header values must be printable ASCII (RFC 6750 error-description): no quotes, backslashes or "…".
    if (error)
      params.push(
        `error="${error}"`,
        `error_description="${refusal.message
          .replace(/…/g, '...')
          .replace(/["\\]/g, "'")
          .replace(/[^\x20-\x7e]/g, '')}"`,
      );
    headers['WWW-Authenticate'] = `Bearer ${params.join(', ')}`;
  }
  const body = { jsonrpc: '2.0', error: { code: JSONRPC_CODES.unauthorized, message: refusal.message }, id: null };
  return new Response(JSON.stringify(body), { status: refusal.status, headers });
}

import { oauthClientMetadataSchema } from '@better-auth/oauth-provider';
import { isForbiddenCimdClientMetadataField } from '@better-auth/oauth-provider/internal';
import { clientMetadataProblem } from './client-metadata-limits.js';
import { isLoopbackUri, LOOPBACK_REFUSED_MESSAGE } from './loopback.js';

/** A Client ID Metadata Document that passed every check, as the provider stores it. */
export type CimdMetadata = ReturnType<typeof oauthClientMetadataSchema.parse> & {
  redirect_uris: string[];
  application_type: string;
};

/** Whether a client_id names a metadata document: an http(s) URL with a path, no fragment, no credentials (http only so the guard can refuse it by name). */
export function isCimdClientId(clientId: string): boolean {
  if (!clientId.startsWith('https://') && !clientId.startsWith('http://')) return false;
  try {
    const u = new URL(clientId);
    return u.pathname !== '/' && !u.hash && !u.username && !u.password;
  } catch {
    return false;
  }
}

/**
 * The checks every Client ID Metadata Document meets, fetched or pinned by the operator: the
 * provider's schema, the fields only a server may set, the size limits of a registration, the
 * client_id it is known by, its redirect URIs under the operator's loopback policy, and the
 * provider's own rules for such clients (no shared secret, no back-channel logout).
 */
export function checkMetadataDocument(
  doc: unknown,
  clientId: string,
  allowLoopbackRedirects: boolean,
): { metadata: CimdMetadata } | { problem: string } {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { problem: 'the document is not a JSON object' };
  for (const field of Object.keys(doc))
    if (isForbiddenCimdClientMetadataField(field)) return { problem: `the document may not set ${field}` };
  // The same size limits as a registration: a document is stored and shown just as a registered client is.
  const tooBig = clientMetadataProblem(doc as Record<string, unknown>);
  if (tooBig) return { problem: tooBig };
  const parsed = oauthClientMetadataSchema.safeParse(doc);
  if (!parsed.success)
    return {
      problem: `invalid metadata: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    };
  if (parsed.data.client_id !== clientId)
    return { problem: `its client_id is not ${clientId}, the URL it is known by` };
  const redirectUris = parsed.data.redirect_uris;
  if (!redirectUris || redirectUris.length === 0) return { problem: 'it lists no redirect_uris' };
  // The operator's loopback policy applies as it does to registration (docs/security.md, "OAuth").
  if (!allowLoopbackRedirects && redirectUris.some(isLoopbackUri)) return { problem: LOOPBACK_REFUSED_MESSAGE };
  const method = parsed.data.token_endpoint_auth_method ?? 'none';
  if (method !== 'none' && method !== 'private_key_jwt')
    return {
      problem: `token_endpoint_auth_method ${method} needs a shared secret, which such a client cannot have (use none or private_key_jwt)`,
    };
  if (parsed.data.backchannel_logout_uri !== undefined || parsed.data.backchannel_logout_session_required !== undefined)
    return { problem: 'it may not set a back-channel logout' };
  // As for registration: MCP clients are native apps (RFC 8252) and rarely say so.
  return {
    metadata: {
      ...parsed.data,
      redirect_uris: redirectUris,
      application_type: parsed.data.application_type ?? 'native',
    },
  };
}

import type { ClientDiscovery, OAuthOptions } from '@better-auth/oauth-provider';
import { oauthClientMetadataSchema } from '@better-auth/oauth-provider';
import { isForbiddenCimdClientMetadataField, registerClientMetadataDocument } from '@better-auth/oauth-provider/internal';
import { APIError } from 'better-auth/api';
import { clientMetadataProblem } from './client-metadata-limits.js';
import { isLoopbackUri, LOOPBACK_REFUSED_MESSAGE } from './loopback.js';
import { type SafeFetchOptions, safeFetch, safeFetchAsFetch } from './safe-fetch.js';

/** How long a fetched Client ID Metadata Document is used before it is fetched again. */
const REFRESH_AFTER_MS = 5 * 60 * 1000;

function refuse(message: string): never {
  throw new APIError('BAD_REQUEST', { error: 'invalid_client', error_description: `Client ID Metadata Document refused: ${message}` });
}

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a `client_id` that is
 * a URL names the client's metadata. Cairn fetches it itself, only through the SSRF guard, and the
 * provider's own persistence seam stores it; the provider never fetches the document.
 */
export function cimdDiscovery(
  getOptions: () => OAuthOptions<any>,
  guard: Omit<SafeFetchOptions, 'headers'> = {},
  allowLoopbackRedirects = true,
  beforeFetch?: (request: Request | undefined) => Promise<number>,
): ClientDiscovery {
  return {
    id: 'cimd',
    matches(clientId) {
      // http:// matches too, so the guard refuses it with a clear message instead of "unknown client".
      if (!clientId.startsWith('https://') && !clientId.startsWith('http://')) return false;
      try {
        const u = new URL(clientId);
        return u.pathname !== '/' && !u.hash && !u.username && !u.password;
      } catch {
        return false;
      }
    },
    async resolve(ctx, clientId, existing) {
      const updated = existing?.updatedAt ? new Date(existing.updatedAt).getTime() : 0;
      if (existing && Date.now() - updated < REFRESH_AFTER_MS) return existing;
      // Each fetch is counted against the address that caused it (the request's), so nobody can make Cairn fetch without limit.
      const wait = (await beforeFetch?.(ctx.request)) ?? 0;
      if (wait > 0) {
        throw new APIError(
          'TOO_MANY_REQUESTS',
          { error: 'temporarily_unavailable', error_description: `Too many Client ID Metadata Document fetches from your network; try again in ${wait} seconds.` },
          { 'Retry-After': String(wait) },
        );
      }
      const answer = await safeFetch(clientId, { ...guard, headers: { accept: 'application/json' } }).catch((e: unknown) => refuse(e instanceof Error ? e.message : String(e)));
      if (answer.status !== 200) refuse(`${clientId} answered HTTP ${answer.status}`);
      let doc: unknown;
      try {
        doc = JSON.parse(answer.body.toString('utf8'));
      } catch {
        refuse(`${clientId} is not JSON`);
      }
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) refuse('the document is not a JSON object');
      for (const field of Object.keys(doc)) if (isForbiddenCimdClientMetadataField(field)) refuse(`the document may not set ${field}`);
      // The same size limits as a registration: a document is stored and shown just as a registered client is.
      const tooBig = clientMetadataProblem(doc as Record<string, unknown>);
      if (tooBig) refuse(tooBig);
      const parsed = oauthClientMetadataSchema.safeParse(doc);
      if (!parsed.success) refuse(`invalid metadata: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      if (parsed.data.client_id !== clientId) refuse('its client_id does not equal the URL it was fetched from');
      // As for registration: MCP clients are native apps (RFC 8252) and rarely say so.
      const redirectUris = parsed.data.redirect_uris;
      if (!redirectUris || redirectUris.length === 0) refuse('it lists no redirect_uris');
      // The operator's loopback policy applies as it does to registration (spec part 7, first row).
      if (!allowLoopbackRedirects && redirectUris.some(isLoopbackUri)) refuse(LOOPBACK_REFUSED_MESSAGE);
      const metadata = { ...parsed.data, redirect_uris: redirectUris, application_type: parsed.data.application_type ?? 'native' };
      const result = await registerClientMetadataDocument(ctx, getOptions(), { metadata, clientId, clientDiscoveryId: 'cimd', ...(existing && { existingClient: existing }) });
      return result.client;
    },
    fetchClientMetadataResource: safeFetchAsFetch(guard),
    discoveryMetadata: { client_id_metadata_document_supported: true },
  };
}

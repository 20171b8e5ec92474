import type { ClientDiscovery, OAuthOptions } from '@better-auth/oauth-provider';
import { registerClientMetadataDocument } from '@better-auth/oauth-provider/internal';
import { APIError } from 'better-auth/api';
import { type CimdMetadata, checkMetadataDocument, isCimdClientId } from './cimd-document.js';
import { SafeFetchError, type SafeFetchOptions, safeFetch, safeFetchAsFetch } from './safe-fetch.js';

/** How long a stored Client ID Metadata Document is used before it is fetched (or copied from its pin) again. */
const REFRESH_AFTER_MS = 5 * 60 * 1000;

/** How each CIMD failure's error_description begins, so the authorize page can tell which it is (cimdFailure). */
const PREFIX = {
  refused: 'Client ID Metadata Document refused: ',
  unreachable: 'Client ID Metadata Document unreachable: ',
  busy: 'Too many Client ID Metadata Document fetches',
} as const;

/** What went wrong with a client's metadata document: refused, not reached, or too many fetches. */
export type CimdFailureKind = keyof typeof PREFIX;

/** The CIMD failure an OAuth error body reports, if it is one. */
export function cimdFailure(body: unknown): { kind: CimdFailureKind; description: string } | undefined {
  const description = (body as { error_description?: unknown } | null)?.error_description;
  if (typeof description !== 'string') return undefined;
  for (const kind of Object.keys(PREFIX) as CimdFailureKind[])
    if (description.startsWith(PREFIX[kind])) return { kind, description };
  return undefined;
}

function fail(kind: 'refused' | 'unreachable', message: string): never {
  throw new APIError('BAD_REQUEST', { error: 'invalid_client', error_description: `${PREFIX[kind]}${message}` });
}

/** Where CIMD clients come from and how they are checked, as the operator set it. */
export interface CimdSettings {
  guard?: Omit<SafeFetchOptions, 'headers'>;
  allowLoopbackRedirects?: boolean;
  /** Counts a fetch against the address of the request that caused it: 0 to go ahead, else seconds to wait. */
  beforeFetch?: (request: Request | undefined) => Promise<number>;
  /** Documents the operator pinned (CAIRN_OAUTH_PINNED_CLIENTS), already checked: used as they are, never fetched. */
  pinned?: ReadonlyMap<string, CimdMetadata>;
}

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a `client_id` that is
 * a URL names the client's metadata. Cairn fetches it itself, only through the SSRF guard, unless the
 * operator pinned a copy; the provider's own persistence seam stores it; the provider never fetches it.
 */
export function cimdDiscovery(getOptions: () => OAuthOptions<any>, settings: CimdSettings = {}): ClientDiscovery {
  const { guard = {}, allowLoopbackRedirects = true, beforeFetch, pinned = new Map() } = settings;
  /** When this process last stored each pinned document: a row written before (by a fetch, or another pin) is replaced once. */
  const pinStoredAt = new Map<string, number>();
  const store = async (
    ctx: Parameters<ClientDiscovery['resolve']>[0],
    clientId: string,
    metadata: CimdMetadata,
    existing: Parameters<ClientDiscovery['resolve']>[2],
  ) =>
    (
      await registerClientMetadataDocument(ctx, getOptions(), {
        metadata,
        clientId,
        clientDiscoveryId: 'cimd',
        ...(existing && { existingClient: existing }),
      })
    ).client;
  return {
    id: 'cimd',
    matches: isCimdClientId,
    async resolve(ctx, clientId, existing) {
      const pin = pinned.get(clientId);
      if (pin) {
        const storedAt = pinStoredAt.get(clientId);
        if (existing && storedAt !== undefined && Date.now() - storedAt < REFRESH_AFTER_MS) return existing;
        const client = await store(ctx, clientId, pin, existing);
        pinStoredAt.set(clientId, Date.now());
        return client;
      }
      const updated = existing?.updatedAt ? new Date(existing.updatedAt).getTime() : 0;
      if (existing && Date.now() - updated < REFRESH_AFTER_MS) return existing;
      // Each fetch is counted against the address that caused it (the request's), so nobody can make Cairn fetch without limit.
      const wait = (await beforeFetch?.(ctx.request)) ?? 0;
      if (wait > 0) {
        throw new APIError(
          'TOO_MANY_REQUESTS',
          {
            error: 'temporarily_unavailable',
            error_description: `${PREFIX.busy} from your network; try again in ${wait} seconds.`,
          },
          { 'Retry-After': String(wait) },
        );
      }
      const answer = await safeFetch(clientId, { ...guard, headers: { accept: 'application/json' } }).catch(
        (e: unknown) =>
          fail(
            e instanceof SafeFetchError && e.unreachable ? 'unreachable' : 'refused',
            e instanceof Error ? e.message : String(e),
          ),
      );
      if (answer.status !== 200) fail('refused', `${clientId} answered HTTP ${answer.status}`);
      let doc: unknown;
      try {
        doc = JSON.parse(answer.body.toString('utf8'));
      } catch {
        fail('refused', `${clientId} is not JSON`);
      }
      const checked = checkMetadataDocument(doc, clientId, allowLoopbackRedirects);
      if ('problem' in checked) fail('refused', checked.problem);
      return store(ctx, clientId, checked.metadata, existing);
    },
    fetchClientMetadataResource: safeFetchAsFetch(guard),
    discoveryMetadata: { client_id_metadata_document_supported: true },
  };
}

import { z } from 'zod';

/** Longest client_name accepted at registration; the consent page and Connected apps show it. */
export const MAX_CLIENT_NAME = 200;
/** Most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 10;
/** Longest URI accepted in any URI field. */
export const MAX_URI = 2000;

/**
 * 2000 → "2,000". Not toLocaleString: its first call pages in about 4 MB of ICU's locale data from
 * the node binary, which then counts in the server's resident memory for good.
 */
export const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const text = (max: number) => z.string().max(max, `must be at most ${thousands(max)} characters`);
const uris = z.array(text(MAX_URI)).max(MAX_REDIRECT_URIS, `must list at most ${MAX_REDIRECT_URIS} URIs`);
const list = (items: number, length: number) => z.array(text(length)).max(items, `must list at most ${items} values`);
const serialized = (max: number) =>
  z.unknown().refine((v) => JSON.stringify(v).length <= max, `must be at most ${thousands(max)} characters as JSON`);

/**
 * Bounds on RFC 7591 client metadata. better-auth stores what it is given; a registration is
 * unauthenticated, so every stored field has a size. Unknown fields pass on untouched (the whole
 * body is already limited by ../../http/body-limits.ts).
 */
const clientMetadataLimits = z.looseObject({
  client_name: text(MAX_CLIENT_NAME).optional(),
  redirect_uris: uris.optional(),
  post_logout_redirect_uris: uris.optional(),
  client_uri: text(MAX_URI).optional(),
  logo_uri: text(MAX_URI).optional(),
  tos_uri: text(MAX_URI).optional(),
  policy_uri: text(MAX_URI).optional(),
  jwks_uri: text(MAX_URI).optional(),
  backchannel_logout_uri: text(MAX_URI).optional(),
  scope: text(1000).optional(),
  contacts: list(10, 320).optional(),
  grant_types: list(10, 100).optional(),
  response_types: list(10, 100).optional(),
  token_endpoint_auth_method: text(100).optional(),
  software_id: text(200).optional(),
  software_version: text(200).optional(),
  software_statement: text(8000).optional(),
  jwks: serialized(16_000).optional(),
  metadata: serialized(4000).optional(),
});

/** What is wrong with a registration's metadata sizes, as an RFC 7591 error_description, or undefined when nothing is. */
export function clientMetadataProblem(body: Record<string, unknown>): string | undefined {
  const result = clientMetadataLimits.safeParse(body);
  if (result.success) return undefined;
  return result.error.issues.map((i) => `${i.path.join('.') || 'metadata'} ${i.message}`).join('; ');
}

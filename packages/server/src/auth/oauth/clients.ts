import type { Auth } from '../better-auth.js';

interface ClientRow {
  redirectUris?: string[] | string | null;
  disabled?: boolean | null;
}

/** The redirect URIs a client registered, from the provider's own table; empty when it is unknown or disabled. */
export async function registeredRedirectUris(auth: Auth, clientId: string): Promise<string[]> {
  const ctx = await auth.$context;
  const client = await ctx.adapter.findOne<ClientRow>({
    model: 'oauthClient',
    where: [{ field: 'clientId', value: clientId }],
  });
  if (!client || client.disabled) return [];
  return stringList(client.redirectUris);
}

/**
 * Whether `requested` is one of `registered`: character for character, except that an http
 * loopback callback may use another port (RFC 8252 §7.3), as the provider itself matches them.
 */
export function matchesRegisteredRedirect(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const portless = withoutLoopbackPort(requested);
  return portless !== undefined && registered.some((uri) => withoutLoopbackPort(uri) === portless);
}

function withoutLoopbackPort(uri: string): string | undefined {
  const match = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(?::\d+)?([/?].*)?$/.exec(uri);
  return match ? `http://${match[1]}${match[2] ?? ''}` : undefined;
}

/** A list column: an array, a JSON array, or a space- or comma-separated string. */
export function stringList(value: string[] | string | null | undefined): string[] {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string' || value === '') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) return parsed.filter((v): v is string => typeof v === 'string');
  } catch {
    // a space- or comma-separated list
  }
  return value.split(/[\s,]+/).filter(Boolean);
}

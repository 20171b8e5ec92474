import { clientMetadataProblem } from './client-metadata-limits.js';
import { isLoopbackUri, LOOPBACK_REFUSED_MESSAGE } from './loopback.js';

/** Operator settings that shape dynamic client registration. */
export interface RegistrationSettings {
  /** Accept loopback redirect URIs (RFC 8252) at registration. */
  allowLoopback: boolean;
  /** Custom schemes of known clients (`cursor`, `vscode`…) whose callbacks may register. */
  clientSchemes: readonly string[];
}

/**
 * What to do with a registration request (RFC 7591 body): refuse it with an RFC error, or pass
 * this body on to better-auth's endpoint and, once registered, put back the real redirect URIs.
 */
export type RegistrationPlan =
  | { refuse: { error: 'invalid_client_metadata' | 'invalid_redirect_uri'; error_description: string } }
  | { forward: Record<string, unknown>; realRedirectUris(registered: unknown[]): unknown[]; rewritten: boolean };

/** A reverse-domain scheme no client uses: what a known-scheme callback is registered as until its row is fixed. */
const STAND_IN_SCHEME = 'internal.cairn.redirect-stand-in';

/** Cairn's registration policy on top of the OAuth plugin's. */
export function planRegistration(body: Record<string, unknown>, settings: RegistrationSettings): RegistrationPlan {
  const tooBig = clientMetadataProblem(body);
  if (tooBig) return { refuse: { error: 'invalid_client_metadata', error_description: tooBig } };
  const redirects = Array.isArray(body.redirect_uris)
    ? body.redirect_uris.filter((u): u is string => typeof u === 'string')
    : [];
  if (!settings.allowLoopback && redirects.some(isLoopbackUri))
    return { refuse: { error: 'invalid_redirect_uri', error_description: LOOPBACK_REFUSED_MESSAGE } };
  // better-auth treats a registration without application_type as a web client and refuses its
  // loopback callbacks; MCP clients (RFC 8252 native apps) rarely send it.
  const adjusted = { ...body, application_type: body.application_type ?? 'native' };
  // The plugin accepts only reverse-domain private-use schemes (RFC 8252 §7.1), but Cursor and
  // VS Code call back on `cursor://…` and `vscode://…`. Those (from the operator's list) pass the
  // plugin's checks as stand-ins, and the client row then gets the real URIs.
  const known = redirects.filter((uri) => isKnownClientScheme(uri, settings.clientSchemes));
  if (known.length === 0 || !Array.isArray(body.redirect_uris))
    return { forward: adjusted, realRedirectUris: (uris) => uris, rewritten: false };
  const unsafe = known.find((uri) => !isSafeSchemeUri(uri));
  if (unsafe)
    return {
      refuse: {
        error: 'invalid_redirect_uri',
        error_description: `redirect URI must not include credentials or a fragment: ${unsafe}`,
      },
    };
  const standIn = (uri: string) => (known.includes(uri) ? `${STAND_IN_SCHEME}:/${known.indexOf(uri)}` : uri);
  return {
    forward: {
      ...adjusted,
      application_type: 'native',
      redirect_uris: body.redirect_uris.map((u) => (typeof u === 'string' ? standIn(u) : u)),
    },
    realRedirectUris: (uris) =>
      uris.map((u) =>
        typeof u === 'string' && u.startsWith(`${STAND_IN_SCHEME}:/`)
          ? (known[Number(u.slice(STAND_IN_SCHEME.length + 2))] ?? u)
          : u,
      ),
    rewritten: true,
  };
}

function isKnownClientScheme(uri: string, schemes: readonly string[]): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
  return scheme !== undefined && schemes.includes(scheme);
}

/** The plugin's rules for any redirect URI: absolute, no fragment, no credentials. */
function isSafeSchemeUri(uri: string): boolean {
  try {
    const url = new URL(uri);
    return !uri.includes('#') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

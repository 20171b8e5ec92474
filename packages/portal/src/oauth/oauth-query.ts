/** What better-auth adds to the query it signs when it sends a browser to the sign-in or consent page. */
const SIGNATURE_PARAMS = ['sig', 'exp', 'ba_iat', 'ba_pl', 'ba_param'];

/** True when this sign-in page was reached from an OAuth authorize request (a signed query). */
export function isOAuthSignIn(query: URLSearchParams): boolean {
  return query.has('client_id') && query.has('sig');
}

/**
 * The authorize URL to resume once the user is signed in: the original request without the
 * signature and without `prompt=login`/`max_age` (the user just signed in). Cairn answers it with a
 * real redirect: to the consent page, or straight back to the app when consent is remembered.
 */
export function resumeAuthorizeUrl(query: URLSearchParams): string {
  const q = new URLSearchParams(query);
  for (const p of SIGNATURE_PARAMS) q.delete(p);
  q.delete('max_age');
  const prompt = (q.get('prompt') ?? '').split(' ').filter((p) => p && p !== 'login');
  if (prompt.length) q.set('prompt', prompt.join(' '));
  else q.delete('prompt');
  return `/api/auth/oauth2/authorize?${q}`;
}

/** Scopes in plain words. */
export const SCOPE_WORDS: Record<string, string> = {
  mcp: 'Read and write your Cairn datapacks',
  offline_access: 'Stay connected (refresh)',
};

/** Where an app's redirect URI sends the browser, said so a person understands it. */
export function describeRedirect(uri: string): { label: string; host: string; loopback: boolean } {
  try {
    const u = new URL(uri);
    const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const loopback = host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
    if (loopback)
      return { label: `this computer (localhost${u.port ? `:${u.port}` : ''})`, host: u.host, loopback: true };
    if (u.protocol === 'http:' || u.protocol === 'https:') return { label: u.host, host: u.host, loopback: false };
    return {
      label: `the ${u.protocol.replace(/:$/, '')} app on this computer`,
      host: `${u.protocol}//${u.host}`,
      loopback: false,
    };
  } catch {
    return { label: uri, host: uri, loopback: false };
  }
}

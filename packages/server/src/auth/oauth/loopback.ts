/** What a user is told when the operator refuses loopback OAuth callbacks (docs/security.md, "OAuth"). */
export const LOOPBACK_REFUSED_MESSAGE =
  'This Cairn does not accept OAuth callbacks on localhost, so this client cannot connect with OAuth. Use an API key instead: in the Cairn portal open Settings > API Keys > Generate API key, then configure the client with it (npx cairn-mcp-installer@latest).';

/** True for callbacks on this machine (RFC 8252 loopback redirects). */
export function isLoopbackUri(uri: string): boolean {
  try {
    const host = new URL(uri).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

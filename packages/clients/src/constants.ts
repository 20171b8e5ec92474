import { INSTALLER_USER_AGENT, KEY_PREFIX } from '@cairn/contract';

/** The User-Agent every API-key request to Cairn must carry, and the key prefix (docs/security.md, "API keys and scopes"). */
export { INSTALLER_USER_AGENT, KEY_PREFIX };

/** The stdio-to-HTTP bridge the chat desktop client runs, pinned to one version (docs/clients.md, "Claude Desktop"). */
export const BRIDGE_PACKAGE = 'mcp-remote@0.1.38';

/** The environment variable that carries `Bearer <key>` to the bridge; args reference it as `${AUTH_HEADER}`. */
export const BRIDGE_AUTH_ENV = 'AUTH_HEADER';

/** The environment variable Codex reads the bearer token from. */
export const CODEX_TOKEN_ENV = 'CAIRN_MCP_TOKEN';

/**
 * Gemini CLI starts no MCP server, not even a user-level one, in a folder it does not trust (it lists the
 * entry as "Disabled"): the step every method needs, in Gemini's own words.
 */
export const GEMINI_TRUST_STEP =
  'Gemini CLI runs MCP servers only in trusted folders: start gemini in your project folder and trust it when asked (or run /permissions trust in a session; for scripts, set GEMINI_CLI_TRUST_WORKSPACE=true).';

/** The default name of the MCP entry in a client's configuration. */
export const DEFAULT_SERVER_NAME = 'cairn';

/** The prompt that verifies a connection from inside any client (docs/clients.md, "The installer"). */
export const VERIFICATION_PROMPT = 'List my Cairn datapacks.';

/** The MCP address for a Cairn base URL (or an address that already ends in /mcp). */
export function mcpUrlFor(baseOrMcpUrl: string): string {
  const trimmed = baseOrMcpUrl.trim().replace(/\/+$/, '');
  return trimmed.endsWith('/mcp') ? trimmed : `${trimmed}/mcp`;
}

/** Why a Cairn address cannot be used as given (no scheme, not http(s), a query…); undefined when it can. */
export function urlProblem(url: string): string | undefined {
  const trimmed = url.trim();
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(trimmed)) return 'has no scheme';
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return 'is not a valid address';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return 'must start with https:// (or http:// for a server on this machine or network)';
  if (parsed.search !== '' || parsed.hash !== '' || /[?#]/.test(trimmed)) return 'must have no ?query or #fragment';
  if (parsed.username !== '' || parsed.password !== '') return 'must not hold a user name or password';
  return undefined;
}

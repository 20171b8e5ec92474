import { BRIDGE_AUTH_ENV, BRIDGE_PACKAGE, CODEX_TOKEN_ENV, INSTALLER_USER_AGENT } from './constants.js';

/**
 * A server block: what a client's config file holds for one MCP server (a JSON object or a TOML table).
 * Users call it the "entry" in that file; in code "entry" is a knowledge entry, so this is a block.
 */
export type ServerBlock = Record<string, unknown>;

/** The two request headers of the API-key method (docs/security.md, "API keys and scopes"): `Bearer ` prefix and the installer User-Agent. */
export function apiKeyHeaders(apiKey: string): Record<string, string> {
  return { Authorization: `Bearer ${apiKey}`, 'User-Agent': INSTALLER_USER_AGENT };
}

/** Header-based entry (docs/clients.md): url + Authorization + User-Agent. */
export function headerBlock(mcpUrl: string, apiKey: string): ServerBlock {
  return { url: mcpUrl, headers: apiKeyHeaders(apiKey) };
}

/** OAuth entry (docs/clients.md): the header-based shape with `url` only, no `headers` object. */
export function oauthBlock(mcpUrl: string): ServerBlock {
  return { url: mcpUrl };
}

/** The bridge arguments in the exact order docs/clients.md ("Claude Desktop") shows; the key never appears here, only `${AUTH_HEADER}`. */
export function bridgeArgs(mcpUrl: string): string[] {
  return [
    '-y',
    BRIDGE_PACKAGE,
    mcpUrl,
    '--transport',
    'http-only',
    '--header',
    `Authorization:\${${BRIDGE_AUTH_ENV}}`,
    '--header',
    `User-Agent:${INSTALLER_USER_AGENT}`,
  ];
}

/** Bridge-based entry for the chat desktop client: `npx` + bridge args, the key only in `env.AUTH_HEADER`. */
export function bridgeBlock(mcpUrl: string, apiKey: string): ServerBlock {
  return { command: 'npx', args: bridgeArgs(mcpUrl), env: { [BRIDGE_AUTH_ENV]: `Bearer ${apiKey}` } };
}

/** Entry with `type: "http"` (Claude Code, VS Code, Gemini CLI); without a key it is the OAuth entry. */
export function typedHttpBlock(mcpUrl: string, apiKey?: string): ServerBlock {
  return apiKey === undefined
    ? { type: 'http', url: mcpUrl }
    : { type: 'http', url: mcpUrl, headers: apiKeyHeaders(apiKey) };
}

/** Windsurf's entry: the header-based shape with its `serverUrl` key. */
export function windsurfBlock(mcpUrl: string, apiKey?: string): ServerBlock {
  return apiKey === undefined ? { serverUrl: mcpUrl } : { serverUrl: mcpUrl, headers: apiKeyHeaders(apiKey) };
}

/**
 * Codex's `[mcp_servers.<name>]` table: with a key, literal `http_headers` (Codex sends them as they are;
 * the file is kept mode 0600), so Codex needs no variable exported in a shell profile; without, OAuth.
 */
export function codexBlock(mcpUrl: string, apiKey?: string): ServerBlock {
  return apiKey === undefined ? { url: mcpUrl } : { url: mcpUrl, http_headers: apiKeyHeaders(apiKey) };
}

/** The older Codex table: the key in the `CAIRN_MCP_TOKEN` variable (`bearer_token_env_var`); still read, no longer written. */
export function codexEnvBlock(mcpUrl: string): ServerBlock {
  return { url: mcpUrl, bearer_token_env_var: CODEX_TOKEN_ENV, http_headers: { 'User-Agent': INSTALLER_USER_AGENT } };
}

/** The Codex entry as a TOML table, written this way when the entry is new. */
export function codexTomlTable(serverName: string, mcpUrl: string, apiKey?: string): string {
  const lines = [`[mcp_servers.${tomlKey(serverName)}]`, `url = ${JSON.stringify(mcpUrl)}`];
  if (apiKey !== undefined) {
    const headers = Object.entries(apiKeyHeaders(apiKey)).map(
      ([name, value]) => `${JSON.stringify(name)} = ${JSON.stringify(value)}`,
    );
    lines.push(`http_headers = { ${headers.join(', ')} }`);
  }
  return `${lines.join('\n')}\n`;
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

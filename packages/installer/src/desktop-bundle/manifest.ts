import { BRIDGE_AUTH_ENV, bridgeArgs, mcpUrlFor } from '@cairn/clients';

/** The `user_config` field Claude Desktop asks for at install; the key exists only there, never in the file. */
export const API_KEY_FIELD = 'api_key';

/** The MCP Bundle manifest spec version written (`@anthropic-ai/mcpb` validates 0.1–0.4). */
export const MANIFEST_VERSION = '0.3';

/** The skill files the bundle carries, by path inside the bundle. */
export type BundleSkills = Readonly<Record<string, string>>;

/**
 * The MCP address as the bundle writes it: WHATWG-normalised, so characters Claude Desktop would treat as its
 * own `${…}` variables (or that break an argument) arrive percent-encoded and the URL still names the same place.
 */
export function bundleMcpUrl(baseOrMcpUrl: string): string {
  return new URL(mcpUrlFor(baseOrMcpUrl)).href;
}

/**
 * `manifest.json` of the Claude Desktop extension: the contract's bridge entry (docs/clients.md, "Claude Desktop") as `server.mcp_config`,
 * with `env.AUTH_HEADER` taken from the sensitive `user_config.api_key` the user pastes when installing.
 */
export function desktopBundleManifest(
  baseOrMcpUrl: string,
  version: string,
  skills: BundleSkills,
): Record<string, unknown> {
  const mcpUrl = bundleMcpUrl(baseOrMcpUrl);
  const skillNames = Object.keys(skills).map((path) => path.split('/')[1]);
  return {
    manifest_version: MANIFEST_VERSION,
    name: 'cairn',
    display_name: 'Cairn',
    version,
    description:
      "Your organization's policies, team standards and preferences, and your memory across agents, from Cairn.",
    long_description: [
      `Connects Claude Desktop to the Cairn at ${mcpUrl} through the mcp-remote bridge, with the API key you paste when installing (stored by Claude Desktop as a secret, never in this file).`,
      `The skills folder holds Cairn's skills (${skillNames.join(', ')}) as text: Claude Desktop does not load skills from an extension. A condensed form of the same guidance reaches Claude through the Cairn server's MCP instructions.`,
      'Remove it in Settings > Extensions.',
    ].join('\n\n'),
    author: { name: 'Cairn' },
    server: {
      type: 'node',
      // Required by the schema for a node server; nothing local runs (the command is npx), so it names the bundle's README.
      entry_point: 'README.md',
      mcp_config: {
        command: 'npx',
        args: bridgeArgs(mcpUrl),
        env: { [BRIDGE_AUTH_ENV]: `Bearer \${user_config.${API_KEY_FIELD}}` },
      },
    },
    user_config: {
      [API_KEY_FIELD]: {
        type: 'string',
        title: 'Cairn API key',
        description:
          'An API key from the Cairn portal (API keys page), starting with cairn_tkn_. Claude Desktop keeps it as a secret.',
        sensitive: true,
        required: true,
      },
    },
    compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: '>=18.0.0' } },
  };
}

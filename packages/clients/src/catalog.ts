import type { ClientId } from './client-ids.js';
import { claudeMcpAddCommand, codexMcpAddCommand } from './commands.js';
import { CODEX_TOKEN_ENV, GEMINI_TRUST_STEP, INSTALLER_USER_AGENT, VERIFICATION_PROMPT } from './constants.js';
import {
  bridgeBlock,
  codexBlock,
  headerBlock,
  oauthBlock,
  type ServerBlock,
  typedHttpBlock,
  windsurfBlock,
} from './server-blocks.js';

/** How a client is connected. */
export type Method = 'automated' | 'oauth' | 'manual';

/** What the steps of a method are filled in with. */
export interface StepContext {
  mcpUrl: string;
  serverName: string;
  configPath: string;
  /** The user's system, where a step differs by it (absent: the steps for every system). */
  platform?: NodeJS.Platform;
}

/** A method a client supports, with what the user does; or why it is not offered. */
export type MethodInfo =
  | { supported: true; steps: (ctx: StepContext) => string[] }
  | { supported: false; reason: string };

/** One client: where its server block (its config entry for Cairn) lives, the block's shape for each auth method, and how to set it up or remove it. */
export interface ClientInfo {
  id: ClientId;
  displayName: string;
  /** What kind of client it is, in words a user recognises. */
  kind: string;
  /** `loopback`: its OAuth sign-in returns to a local (127.0.0.1/localhost) callback, which an operator may refuse. */
  oauthCallback?: 'loopback';
  /** The Client ID Metadata Document its OAuth sign-in names as client_id: the Cairn server reads it from the vendor, unless the operator pinned a copy. */
  oauthMetadataDocument?: string;
  format: 'json' | 'jsonc' | 'toml';
  /** The key holding the entries: `mcpServers`, VS Code's `servers`, Codex's `mcp_servers`. */
  containerKey: 'mcpServers' | 'servers' | 'mcp_servers';
  /** The entry the installer writes: with a key for the API-key method, without for OAuth. */
  block: (mcpUrl: string, apiKey?: string) => ServerBlock;
  /** Whether the installer may write an OAuth entry; the reason otherwise. */
  installerOAuth: { supported: true } | { supported: false; reason: string };
  methods: Record<Method, MethodInfo>;
  removal: Record<Method, string>;
  /** Said after writing: what the user must do before the entry is used. */
  afterInstall: string;
  /** Said after uninstall: what this installer did not add and leaves in place (on this system, if given). */
  staysAfterUninstall: (platform?: NodeJS.Platform) => string;
}

const verify = `Verify: ask the agent "${VERIFICATION_PROMPT}"`;
const automated = (id: string): MethodInfo => ({
  supported: true,
  steps: ({ mcpUrl }) => [`npx cairn-mcp-installer@latest --client ${id} --url ${mcpUrl}`, verify],
});
const headersText = `Authorization: Bearer <API_KEY> and User-Agent: ${INSTALLER_USER_AGENT}`;
/** An entry's fields other than headers, as the user will see them in the snippet: `"type": "http", "url": "<mcp_url>"`. */
export function blockFieldsText(entry: ServerBlock): string {
  return Object.entries(entry)
    .filter(([k]) => k !== 'headers')
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ');
}
/** The Manual step of a file-based client, derived from the entry it writes so the text and the snippet agree. */
const manualFile = (containerKey: string, block: ClientInfo['block']): MethodInfo => ({
  supported: true,
  steps: ({ configPath, serverName }) => [
    `Open ${configPath} and add under ${containerKey} the entry "${serverName}" with ${blockFieldsText(block('<mcp_url>', '<API_KEY>'))} and the headers ${headersText}.`,
    verify,
  ],
});
/** The OAuth step of a file-based client: its url-only entry, exactly as the snippet shows it. */
const oauthFile = (
  containerKey: string,
  block: ClientInfo['block'],
  then = 'Complete the browser sign-in.',
): MethodInfo => ({
  supported: true,
  steps: ({ configPath, serverName }) => [
    `Add "${serverName}": { ${blockFieldsText(block('<mcp_url>'))} } under ${containerKey} in ${configPath}, with no headers.`,
    then,
    verify,
  ],
});
/** Gemini CLI's trust step, before the verification step. */
const withTrust = (m: MethodInfo): MethodInfo =>
  m.supported
    ? {
        supported: true,
        steps: (ctx) =>
          m.steps(ctx).flatMap((step) => (step.startsWith('Verify') ? [GEMINI_TRUST_STEP, step] : [step])),
      }
    : m;
const deleteBlock = (key: string) => `Delete ${key}.<server_name> from the config file and restart the client.`;

const jsonClient = (
  id: ClientId,
  displayName: string,
  kind: string,
  block: ClientInfo['block'],
  extra: Partial<ClientInfo> = {},
): ClientInfo => ({
  id,
  displayName,
  kind,
  format: 'json',
  containerKey: 'mcpServers',
  block,
  installerOAuth: { supported: true },
  methods: {
    automated: automated(id),
    oauth: oauthFile('mcpServers', block),
    manual: manualFile('mcpServers', block),
  },
  removal: {
    automated: `npx cairn-mcp-installer@latest --client ${id} --uninstall`,
    oauth: deleteBlock('mcpServers'),
    manual: deleteBlock('mcpServers'),
  },
  afterInstall: `Restart ${displayName}, then ask "${VERIFICATION_PROMPT}"`,
  staysAfterUninstall: () => 'Every other entry and setting in the file stays as it was.',
  ...extra,
});

/** The one catalog of clients, used by the installer, the portal's Connect dialog and the docs. */
export const CLIENTS: Readonly<Record<ClientId, ClientInfo>> = {
  'claude-desktop': jsonClient(
    'claude-desktop',
    'Claude Desktop',
    'Chat desktop app',
    (url, key) => (key === undefined ? oauthBlock(url) : bridgeBlock(url, key)),
    {
      installerOAuth: {
        supported: false,
        reason:
          'Claude Desktop signs in with OAuth through a custom connector, not through its config file: Settings > Customize > Connectors.',
      },
      methods: {
        automated: automated('claude-desktop'),
        oauth: {
          supported: true,
          steps: ({ mcpUrl }) => [
            `Settings > Customize > Connectors: add a custom connector named Cairn with the URL ${mcpUrl}.`,
            'Complete the browser sign-in.',
            verify,
          ],
        },
        manual: {
          supported: true,
          steps: ({ configPath }) => [
            `Settings > Desktop app > Developer > Edit Config: it opens ${configPath || 'claude_desktop_config.json'}.`,
            'Add the bridge entry under mcpServers (the key goes only in env.AUTH_HEADER).',
            'Quit and restart Claude Desktop.',
            verify,
          ],
        },
      },
      removal: {
        automated: 'npx cairn-mcp-installer@latest --client claude-desktop --uninstall',
        oauth: 'Delete the connector: Settings > Customize > Connectors.',
        manual: deleteBlock('mcpServers'),
      },
      afterInstall: `Quit and restart Claude Desktop, then ask "${VERIFICATION_PROMPT}"`,
      staysAfterUninstall: () =>
        'Every other entry stays. A skill bundle imported in Claude Desktop is not removed: remove it in Settings > Extensions.',
    },
  ),
  'claude-code': jsonClient('claude-code', 'Claude Code', 'Command-line coding agent', typedHttpBlock, {
    oauthCallback: 'loopback',
    methods: {
      automated: automated('claude-code'),
      oauth: {
        supported: true,
        steps: ({ mcpUrl, serverName }) => [
          claudeMcpAddCommand(serverName, mcpUrl),
          'Run /mcp in a session and complete the browser sign-in.',
          verify,
        ],
      },
      manual: {
        supported: true,
        steps: ({ mcpUrl, serverName }) => [claudeMcpAddCommand(serverName, mcpUrl, '<API_KEY>'), verify],
      },
    },
    removal: {
      automated: 'npx cairn-mcp-installer@latest --client claude-code --uninstall',
      oauth: 'claude mcp remove <server_name> -s user',
      manual: 'claude mcp remove <server_name> -s user',
    },
    afterInstall: `Start a new Claude Code session, then ask "${VERIFICATION_PROMPT}"`,
  }),
  cursor: jsonClient('cursor', 'Cursor', 'Code editor', (url, key) =>
    key === undefined ? oauthBlock(url) : headerBlock(url, key),
  ),
  vscode: jsonClient('vscode', 'VS Code', 'Code editor', typedHttpBlock, {
    format: 'jsonc',
    containerKey: 'servers',
    oauthCallback: 'loopback',
    methods: {
      automated: automated('vscode'),
      oauth: oauthFile('servers', typedHttpBlock, 'Start the server and complete the browser sign-in.'),
      manual: manualFile('servers', typedHttpBlock),
    },
    removal: {
      automated: 'npx cairn-mcp-installer@latest --client vscode --uninstall',
      oauth: deleteBlock('servers'),
      manual: deleteBlock('servers'),
    },
  }),
  codex: jsonClient('codex', 'Codex', 'Coding agent (CLI, app and IDE extension)', codexBlock, {
    format: 'toml',
    containerKey: 'mcp_servers',
    oauthCallback: 'loopback',
    // In the codex binary, beside "MCP authorization server does not advertise CIMD".
    oauthMetadataDocument: 'https://chatgpt.com/oauth/codex/client.json',
    methods: {
      automated: automated('codex'),
      oauth: {
        supported: true,
        steps: ({ mcpUrl, serverName, configPath }) => [
          codexMcpAddCommand(serverName, mcpUrl),
          `It adds [mcp_servers.${serverName}] with url = "${mcpUrl}" to ${configPath}, which the Codex CLI, app and IDE extension all read. Codex opens your browser to sign in to Cairn; if it does not, run codex mcp login ${serverName}.`,
          verify,
        ],
      },
      manual: {
        supported: true,
        steps: ({ configPath, platform }) => [
          `Add the table below to ${configPath} (the Codex CLI, app and IDE extension all read it): the key goes in http_headers, which Codex sends as written.`,
          platform === 'win32'
            ? `Keep ${configPath} private: it holds the key.`
            : `chmod 600 ${configPath} (it holds the key).`,
          'Restart Codex.',
          verify,
        ],
      },
    },
    removal: {
      automated: 'npx cairn-mcp-installer@latest --client codex --uninstall',
      oauth: 'codex mcp remove <server_name>',
      manual: deleteBlock('mcp_servers'),
    },
    afterInstall: `Restart Codex (CLI, app or IDE extension), then ask "${VERIFICATION_PROMPT}"`,
    staysAfterUninstall: (platform) =>
      `Every other table stays. An older install's ${CODEX_TOKEN_ENV} variable, if you set one, is no longer used: ${
        platform === 'win32'
          ? 'delete it under System > Environment Variables'
          : `delete its line from your shell profile${platform === 'linux' ? '' : ` (macOS: launchctl unsetenv ${CODEX_TOKEN_ENV})`}`
      }.`,
  }),
  kiro: jsonClient(
    'kiro',
    'Kiro (IDE and CLI)',
    'Code editor and command-line agent',
    (url, key) => (key === undefined ? oauthBlock(url) : headerBlock(url, key)),
    {
      oauthCallback: 'loopback',
      // Automatic mode is Kiro's default, and its skills and capture hooks send the key: the installer always writes one.
      installerOAuth: {
        supported: false,
        reason:
          'Kiro: the installer sets Kiro up with an API key, which its skills and capture hooks use too. To sign in with OAuth instead, add the url-only entry yourself (Connect > OAuth in the portal).',
      },
      methods: {
        automated: automated('kiro'),
        oauth: oauthFile('mcpServers', oauthBlock, 'Kiro opens your browser: complete the sign-in.'),
        manual: {
          supported: true,
          steps: ({ configPath, serverName, platform }) => [
            `Open ${configPath} ($KIRO_HOME replaces ~/.kiro when set) and add under mcpServers the entry "${serverName}" with ${blockFieldsText(headerBlock('<mcp_url>', '<API_KEY>'))} and the headers ${headersText}.`,
            platform === 'win32' ? `Keep ${configPath} private: it holds the key.` : `chmod 600 ${configPath}`,
            verify,
          ],
        },
      },
    },
  ),
  'gemini-cli': jsonClient('gemini-cli', 'Gemini CLI', 'Command-line coding agent', typedHttpBlock, {
    format: 'jsonc',
    oauthCallback: 'loopback',
    methods: {
      automated: {
        supported: true,
        steps: ({ mcpUrl }) => [
          `npx cairn-mcp-installer@latest --client gemini-cli --url ${mcpUrl}`,
          GEMINI_TRUST_STEP,
          verify,
        ],
      },
      oauth: withTrust(
        oauthFile(
          'mcpServers',
          typedHttpBlock,
          'Run /mcp auth <server_name> in a session and complete the browser sign-in.',
        ),
      ),
      manual: withTrust(manualFile('mcpServers', typedHttpBlock)),
    },
    afterInstall: `${GEMINI_TRUST_STEP} Then ask "${VERIFICATION_PROMPT}"`,
  }),
  windsurf: jsonClient('windsurf', 'Windsurf', 'Code editor', windsurfBlock),
};

/** The catalog entry of a client. */
export function clientInfo(id: ClientId): ClientInfo {
  return CLIENTS[id];
}

import type { ClientId } from './client-ids.js';
import { claudeMcpAddCommand } from './commands.js';
import { CODEX_TOKEN_ENV, INSTALLER_USER_AGENT, VERIFICATION_PROMPT } from './constants.js';
import { type McpEntry, bridgeEntry, codexEntry, headerEntry, oauthEntry, typedHttpEntry, windsurfEntry } from './entries.js';

/** How a client is connected (spec part 4.2). */
export type Method = 'automated' | 'oauth' | 'manual';

/** What the steps of a method are filled in with. */
export interface StepContext {
  mcpUrl: string;
  serverName: string;
  configPath: string;
}

/** A method a client supports, with what the user does; or why it is not offered. */
export type MethodInfo = { supported: true; steps: (ctx: StepContext) => string[] } | { supported: false; reason: string };

/** One client: where its entry lives, the entry's shape for each auth method, and how to set it up or remove it. */
export interface ClientInfo {
  id: ClientId;
  displayName: string;
  /** The client kind as spec part 4.2 names it. */
  kind: string;
  format: 'json' | 'jsonc' | 'toml';
  /** The key holding the entries: `mcpServers`, VS Code's `servers`, Codex's `mcp_servers`. */
  containerKey: 'mcpServers' | 'servers' | 'mcp_servers';
  /** The entry the installer writes: with a key for the API-key method, without for OAuth. */
  entry: (mcpUrl: string, apiKey?: string) => McpEntry;
  /** Whether the installer may write an OAuth entry; the reason otherwise. */
  installerOAuth: { supported: true } | { supported: false; reason: string };
  methods: Record<Method, MethodInfo>;
  removal: Record<Method, string>;
  /** Said after writing: what the user must do before the entry is used. */
  afterInstall: string;
  /** Said after uninstall: what this installer did not add and leaves in place. */
  staysAfterUninstall: string;
}

const verify = `Verify: ask the agent "${VERIFICATION_PROMPT}"`;
const automated = (id: string): MethodInfo => ({ supported: true, steps: ({ mcpUrl }) => [`npx cairn-mcp-installer@latest --client ${id} --url ${mcpUrl}`, verify] });
const headersText = `Authorization: Bearer <API_KEY> and User-Agent: ${INSTALLER_USER_AGENT}`;
const manualFile = (what: string): MethodInfo => ({
  supported: true,
  steps: ({ configPath, serverName }) => [`Open ${configPath} and add ${what} "${serverName}" with the URL and the headers ${headersText}.`, verify],
});
const deleteEntry = (key: string) => `Delete ${key}.<server_name> from the config file and restart the client.`;
const callbackRejected = 'its OAuth sign-in uses a local callback that the service does not accept (spec part 5, rule 4): use an API key.';

const jsonClient = (id: ClientId, displayName: string, kind: string, entry: ClientInfo['entry'], extra: Partial<ClientInfo> = {}): ClientInfo => ({
  id,
  displayName,
  kind,
  format: 'json',
  containerKey: 'mcpServers',
  entry,
  installerOAuth: { supported: true },
  methods: {
    automated: automated(id),
    oauth: { supported: true, steps: ({ configPath, serverName }) => [`Add "${serverName}": { "url": "<mcp_url>" } under mcpServers in ${configPath}, with no headers.`, 'Complete the browser sign-in.', verify] },
    manual: manualFile('an entry'),
  },
  removal: { automated: `npx cairn-mcp-installer@latest --client ${id} --uninstall`, oauth: deleteEntry('mcpServers'), manual: deleteEntry('mcpServers') },
  afterInstall: `Restart ${displayName}, then ask "${VERIFICATION_PROMPT}"`,
  staysAfterUninstall: 'Every other entry and setting in the file stays as it was.',
  ...extra,
});

/** The one catalog of clients, used by the installer, the portal's Connect dialog and the docs. */
export const CLIENTS: Readonly<Record<ClientId, ClientInfo>> = {
  'claude-desktop': jsonClient('claude-desktop', 'Claude Desktop', 'Chat desktop client', (url, key) => (key === undefined ? oauthEntry(url) : bridgeEntry(url, key)), {
    installerOAuth: { supported: false, reason: 'Claude Desktop signs in with OAuth through a custom connector, not through its config file: Settings > Customize > Connectors.' },
    methods: {
      automated: automated('claude-desktop'),
      oauth: { supported: true, steps: ({ mcpUrl }) => [`Settings > Customize > Connectors: add a custom connector named Cairn with the URL ${mcpUrl}.`, 'Complete the browser sign-in.', verify] },
      manual: {
        supported: true,
        steps: () => ['Settings > Desktop app > Developer > Edit Config.', 'Add the bridge entry under mcpServers (the key goes only in env.AUTH_HEADER).', 'Quit and restart Claude Desktop.', verify],
      },
    },
    removal: { automated: 'npx cairn-mcp-installer@latest --client claude-desktop --uninstall', oauth: 'Delete the connector: Settings > Customize > Connectors.', manual: deleteEntry('mcpServers') },
    afterInstall: `Quit and restart Claude Desktop, then ask "${VERIFICATION_PROMPT}"`,
    staysAfterUninstall: 'Every other entry stays. A skill bundle imported in Claude Desktop is not removed: remove it in Settings > Extensions.',
  }),
  'claude-code': jsonClient('claude-code', 'Claude Code', 'Command-line coding agent', typedHttpEntry, {
    methods: {
      automated: automated('claude-code'),
      oauth: { supported: true, steps: ({ mcpUrl, serverName }) => [claudeMcpAddCommand(serverName, mcpUrl), 'Run /mcp in a session and complete the browser sign-in.', verify] },
      manual: { supported: true, steps: ({ mcpUrl, serverName }) => [claudeMcpAddCommand(serverName, mcpUrl, '<API_KEY>'), verify] },
    },
    removal: { automated: 'npx cairn-mcp-installer@latest --client claude-code --uninstall', oauth: 'claude mcp remove <server_name> -s user', manual: 'claude mcp remove <server_name> -s user' },
    afterInstall: `Start a new Claude Code session, then ask "${VERIFICATION_PROMPT}"`,
  }),
  cursor: jsonClient('cursor', 'Cursor', 'Code-editor desktop client', (url, key) => (key === undefined ? oauthEntry(url) : headerEntry(url, key))),
  vscode: jsonClient('vscode', 'VS Code', 'General-purpose editor', typedHttpEntry, {
    format: 'jsonc',
    containerKey: 'servers',
    methods: {
      automated: automated('vscode'),
      oauth: { supported: true, steps: ({ configPath, serverName }) => [`Add "${serverName}": { "type": "http", "url": "<mcp_url>" } under servers in ${configPath}.`, 'Start the server and complete the browser sign-in.', verify] },
      manual: manualFile('under "servers" a "type": "http" entry'),
    },
    removal: { automated: 'npx cairn-mcp-installer@latest --client vscode --uninstall', oauth: deleteEntry('servers'), manual: deleteEntry('servers') },
  }),
  codex: jsonClient('codex', 'Codex', 'Second desktop coding client', (url, key) => codexEntry(url, key === undefined ? 'oauth' : 'api-key'), {
    format: 'toml',
    containerKey: 'mcp_servers',
    methods: {
      automated: automated('codex'),
      oauth: { supported: true, steps: ({ mcpUrl }) => [`Settings > MCP servers > Add server > Streamable HTTP; URL ${mcpUrl}; leave the Bearer token field empty.`, 'Press Authenticate beside the server and complete the browser sign-in.', verify] },
      manual: {
        supported: true,
        steps: ({ mcpUrl }) => [
          `Settings > MCP servers > Add server > Streamable HTTP; URL ${mcpUrl}; Bearer token environment variable ${CODEX_TOKEN_ENV}; Save.`,
          `Set ${CODEX_TOKEN_ENV} to the API key (macOS: launchctl setenv ${CODEX_TOKEN_ENV} <API_KEY>; check with launchctl getenv ${CODEX_TOKEN_ENV}).`,
          'Quit and restart Codex.',
          verify,
        ],
      },
    },
    removal: { automated: 'npx cairn-mcp-installer@latest --client codex --uninstall', oauth: deleteEntry('mcp_servers'), manual: deleteEntry('mcp_servers') },
    afterInstall: `Quit and restart Codex, then ask "${VERIFICATION_PROMPT}"`,
    staysAfterUninstall: `Every other table stays. The ${CODEX_TOKEN_ENV} variable is not unset: on macOS run launchctl unsetenv ${CODEX_TOKEN_ENV}, elsewhere delete its line from your shell profile.`,
  }),
  kiro: jsonClient('kiro', 'Kiro (IDE and CLI)', 'IDE and CLI pair of one vendor', (url, key) => (key === undefined ? oauthEntry(url) : headerEntry(url, key)), {
    installerOAuth: { supported: false, reason: `Kiro: ${callbackRejected}` },
    methods: {
      automated: automated('kiro'),
      oauth: { supported: false, reason: `Kiro: ${callbackRejected}` },
      manual: {
        supported: true,
        steps: ({ configPath }) => [`Add the header-based entry under mcpServers in ${configPath} ($KIRO_HOME replaces ~/.kiro when set).`, `chmod 600 ${configPath}`, verify],
      },
    },
  }),
  'gemini-cli': jsonClient('gemini-cli', 'Gemini CLI', 'Command-line coding agent', typedHttpEntry, { format: 'jsonc' }),
  windsurf: jsonClient('windsurf', 'Windsurf', 'Code-editor desktop client', windsurfEntry),
};

/** The catalog entry of a client. */
export function clientInfo(id: ClientId): ClientInfo {
  return CLIENTS[id];
}

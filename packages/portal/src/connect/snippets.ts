// Every snippet the Connect dialog shows, built from the client catalog (@cairn/clients) the installer also uses.
import {
  AUTO_FLAG,
  AUTOMATIC,
  CLIENT_IDS,
  CLIENTS,
  type ClientId,
  claudeMcpAddCommand,
  codexMcpAddCommand,
  codexTomlTable,
  configPath,
  DEFAULT_SERVER_NAME,
  type Method,
  VERIFICATION_PROMPT,
} from '@cairn/clients';

export { CLIENT_IDS, CLIENTS, type ClientId, type Method, VERIFICATION_PROMPT };

/** The operating systems a config path or command can differ by. */
export type Os = 'darwin' | 'win32' | 'linux';

/** The placeholder shown where a key goes until the user generates one. */
export const KEY_PLACEHOLDER = '<API_KEY>';

/** A block the user pastes or runs. */
export interface Snippet {
  label: string;
  text: string;
}

/** The client's user-level config file, written the way a user would type it (~ or %USERPROFILE%). */
export function configFileFor(id: ClientId, os: Os): string {
  const home = os === 'win32' ? '%USERPROFILE%' : '~';
  return configPath(id, { platform: os, home, env: os === 'win32' ? { APPDATA: '%APPDATA%' } : {} });
}

/** Fills the catalog's placeholders for display. */
function fill(text: string, mcpUrl: string, serverName: string): string {
  return text.replaceAll('<mcp_url>', mcpUrl).replaceAll('<server_name>', serverName);
}

const isVerify = (step: string) => step.includes(VERIFICATION_PROMPT);

/** The steps of a method (the verification step is shown on its own), or why the method is not offered. */
export function stepsFor(
  id: ClientId,
  method: Method,
  mcpUrl: string,
  os: Os,
  serverName = DEFAULT_SERVER_NAME,
): { supported: true; steps: string[] } | { supported: false; reason: string } {
  const m = CLIENTS[id].methods[method];
  if (!m.supported) return m;
  const steps = m.steps({ mcpUrl, serverName, configPath: configFileFor(id, os), platform: os });
  return { supported: true, steps: steps.filter((s) => !isVerify(s)).map((s) => fill(s, mcpUrl, serverName)) };
}

/** The catalog's installer invocation; the portal swaps in the one that works for this server. */
const REGISTRY_INSTALLER = 'npx cairn-mcp-installer@latest';

/**
 * How to run the installer for this server: its own copy at /install, unless the operator says the
 * package is on the registry (CAIRN_INSTALLER_PUBLISHED). An unpublished registry name must never be
 * shown: whoever registered it would receive the setup code.
 */
export function installerRunner(baseUrl: string, published: boolean): string {
  return published ? REGISTRY_INSTALLER : selfHostedRunner(baseUrl);
}

function selfHostedRunner(baseUrl: string): string {
  return `npx -y ${baseUrl.replace(/\/+$/, '')}/install/cairn-mcp-installer.tgz`;
}

/** How to remove what a method set up. */
export function removalFor(
  id: ClientId,
  method: Method,
  mcpUrl: string,
  runner = REGISTRY_INSTALLER,
  serverName = DEFAULT_SERVER_NAME,
): string {
  return fill(CLIENTS[id].removal[method], mcpUrl, serverName).replace(REGISTRY_INSTALLER, runner);
}

/** Whether a removal is a command to run (and so gets a Copy button), not steps in words. */
export function isCommand(text: string): boolean {
  return /^(npx|claude|codex|gemini|kiro-cli)\s/.test(text);
}

/** The config-file fragment holding the client's entry, exactly as the installer writes it. */
export function blockDocument(id: ClientId, mcpUrl: string, apiKey?: string, serverName = DEFAULT_SERVER_NAME): string {
  const c = CLIENTS[id];
  return JSON.stringify({ [c.containerKey]: { [serverName]: c.block(mcpUrl, apiKey) } }, null, 2);
}

/** Manual (API key) method: the exact entry or command with the real URL and the key (or its placeholder). */
export function manualSnippets(
  id: ClientId,
  mcpUrl: string,
  os: Os,
  apiKey?: string,
  serverName = DEFAULT_SERVER_NAME,
): Snippet[] {
  const key = apiKey ?? KEY_PLACEHOLDER;
  if (id === 'claude-code') return [{ label: 'Command', text: claudeMcpAddCommand(serverName, mcpUrl, key) }];
  if (id === 'codex') {
    const file = configFileFor(id, os);
    const table = { label: `Table in ${file}`, text: codexTomlTable(serverName, mcpUrl, key).trimEnd() };
    return os === 'win32' ? [table] : [table, { label: 'Then keep the file private', text: `chmod 600 ${file}` }];
  }
  return [{ label: `Entry in ${configFileFor(id, os)}`, text: blockDocument(id, mcpUrl, key, serverName) }];
}

/** OAuth method: the url-only entry or command, where the client takes one from a file or a command line. */
export function oauthSnippets(id: ClientId, mcpUrl: string, os: Os, serverName = DEFAULT_SERVER_NAME): Snippet[] {
  if (!CLIENTS[id].methods.oauth.supported) return [];
  if (id === 'claude-code') return [{ label: 'Command', text: claudeMcpAddCommand(serverName, mcpUrl) }];
  if (id === 'codex') return [{ label: 'Command', text: codexMcpAddCommand(serverName, mcpUrl) }];
  // Set up in the client's own menus (the steps say where): nothing to paste but the URL.
  if (id === 'claude-desktop') return [];
  return [{ label: `Entry in ${configFileFor(id, os)}`, text: blockDocument(id, mcpUrl, undefined, serverName) }];
}

/** What the Automated tab offers beyond the entry: nothing, a checkbox (`--auto`), or automatic mode always (Kiro). */
export function automaticOffer(id: ClientId): { kind: 'none' } | { kind: 'opt-in' | 'always'; adds: string[] } {
  const info = AUTOMATIC[id];
  if (!info) return { kind: 'none' };
  return { kind: info.mode === 'default' ? 'always' : 'opt-in', adds: info.adds };
}

/** Automatic mode as the Automated tab's checkbox asks for it; `marketplace` is this Cairn's plugin source, when its operator set one. */
export interface AutomaticChoice {
  auto: boolean;
  marketplace?: string | undefined;
}

/**
 * Automated method: the installer command with a one-time setup code, run the way that works for this
 * server; when the package is published, this server's own copy is the alternative. With automatic mode
 * chosen (where it is opt-in) it carries `--auto`, and for Claude Code `--marketplace` when this Cairn
 * names one (otherwise the installer uses the plugin it carries).
 */
export function installerCommands(
  id: ClientId,
  baseUrl: string,
  mcpUrl: string,
  setupCode: string,
  published: boolean,
  choice: AutomaticChoice = { auto: false },
): { command: string; fromThisServer?: string } {
  const m = CLIENTS[id].methods.automated;
  const fromCatalog = m.supported
    ? m.steps({ mcpUrl, serverName: DEFAULT_SERVER_NAME, configPath: '' })[0]!
    : `${REGISTRY_INSTALLER} --client ${id} --url ${mcpUrl}`;
  const auto =
    choice.auto && automaticOffer(id).kind === 'opt-in'
      ? ` ${AUTO_FLAG}${id === 'claude-code' && choice.marketplace ? ` --marketplace ${choice.marketplace}` : ''}`
      : '';
  const withCode = `${fromCatalog}${auto} --setup-code ${setupCode}`;
  const command = withCode.replace(REGISTRY_INSTALLER, installerRunner(baseUrl, published));
  return published
    ? { command, fromThisServer: withCode.replace(REGISTRY_INSTALLER, selfHostedRunner(baseUrl)) }
    : { command };
}

/** The OS this browser runs on, for config paths. */
export function guessOs(userAgent: string): Os {
  if (/Windows/i.test(userAgent)) return 'win32';
  if (/Mac OS X|Macintosh/i.test(userAgent)) return 'darwin';
  return 'linux';
}

/**
 * Whether a URL's host is reachable only from this computer or this network: loopback, private and
 * link-local ranges, carrier-grade NAT (Tailscale), and names with no public meaning.
 */
export function isPrivateAddress(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || /\.(localhost|local|lan|internal|home\.arpa)$/.test(host)) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host)?.slice(1).map(Number);
  if (v4) {
    const [a, b] = v4 as [number, number];
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (host.includes(':'))
    return host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || /^::ffff:(127|10|192\.168)\./.test(host);
  return !host.includes('.');
}

/**
 * What a client's OAuth sign-in needs from the Cairn server's network, when it names a metadata
 * document on its vendor's site (Codex): the server reads it there, unless the operator pinned a copy.
 */
export function oauthNetworkNote(id: ClientId, pinned: readonly string[] = []): string | undefined {
  const document = CLIENTS[id].oauthMetadataDocument;
  if (!document) return undefined;
  const host = new URL(document).host;
  if (pinned.includes(document))
    return `${CLIENTS[id].displayName} signs in with a registration document on ${host}; this Cairn's operator has pinned a copy, so the sign-in works even where the server cannot reach ${host}.`;
  return `${CLIENTS[id].displayName} signs in with a registration document on ${host}, which the Cairn server itself reads (${document}). The server must be able to reach ${host}, or its operator must pin that document with CAIRN_OAUTH_PINNED_CLIENTS. Behind a firewall that allows neither, the sign-in page says Cairn could not reach ${host}: use the Automated or Manual (API key) tab instead.`;
}

/** What the server allows that decides whether a client's OAuth sign-in can work. */
export interface OAuthServerFacts {
  baseUrl: string;
  oauthLoopbackAllowed?: boolean;
}

/**
 * Why OAuth cannot work for this client on this server, with what to do instead (the Manual tab);
 * undefined when it can. Chat-desktop connectors connect from the vendor's cloud, which cannot reach a
 * loopback or private address; loopback-callback clients need the operator to allow those callbacks.
 */
export function oauthObstacle(id: ClientId, server: OAuthServerFacts): string | undefined {
  const c = CLIENTS[id];
  if (id === 'claude-desktop' && isPrivateAddress(server.baseUrl)) {
    return `${c.displayName}'s custom connectors connect from Anthropic's cloud, which cannot reach ${new URL(server.baseUrl).host}: this Cairn is on a local or private address. Use the Manual (API key) tab instead: it runs a small bridge on your computer that reaches Cairn directly.`;
  }
  if (c.oauthCallback === 'loopback' && server.oauthLoopbackAllowed === false) {
    return `${c.displayName}'s OAuth sign-in returns to a local callback (localhost), and this Cairn's operator has turned those off. Use an API key instead: the Automated or Manual (API key) tab.`;
  }
  return undefined;
}

// Every snippet the Connect dialog shows, built from the client catalog (@cairn/clients) the installer also uses.
import {
  CLIENTS,
  CLIENT_IDS,
  type ClientId,
  DEFAULT_SERVER_NAME,
  type Method,
  VERIFICATION_PROMPT,
  claudeMcpAddCommand,
  codexTokenCommand,
  codexTomlTable,
  configPath,
} from '@cairn/clients';

export { CLIENTS, CLIENT_IDS, type ClientId, type Method, VERIFICATION_PROMPT };

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
export function stepsFor(id: ClientId, method: Method, mcpUrl: string, os: Os, serverName = DEFAULT_SERVER_NAME): { supported: true; steps: string[] } | { supported: false; reason: string } {
  const m = CLIENTS[id].methods[method];
  if (!m.supported) return m;
  const steps = m.steps({ mcpUrl, serverName, configPath: configFileFor(id, os) });
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

/** How to remove what a method set up (spec part 4.2, installer rule 6). */
export function removalFor(id: ClientId, method: Method, mcpUrl: string, runner = REGISTRY_INSTALLER, serverName = DEFAULT_SERVER_NAME): string {
  return fill(CLIENTS[id].removal[method], mcpUrl, serverName).replace(REGISTRY_INSTALLER, runner);
}

/** The config-file fragment holding the client's entry, exactly as the installer writes it. */
export function entryDocument(id: ClientId, mcpUrl: string, apiKey?: string, serverName = DEFAULT_SERVER_NAME): string {
  const c = CLIENTS[id];
  return JSON.stringify({ [c.containerKey]: { [serverName]: c.entry(mcpUrl, apiKey) } }, null, 2);
}

/** Manual (API key) method: the exact entry or command with the real URL and the key (or its placeholder). */
export function manualSnippets(id: ClientId, mcpUrl: string, os: Os, apiKey?: string, serverName = DEFAULT_SERVER_NAME): Snippet[] {
  const key = apiKey ?? KEY_PLACEHOLDER;
  if (id === 'claude-code') return [{ label: 'Command', text: claudeMcpAddCommand(serverName, mcpUrl, key) }];
  if (id === 'codex') {
    return [
      { label: `Table in ${configFileFor(id, os)}`, text: codexTomlTable(serverName, mcpUrl, 'api-key').trimEnd() },
      { label: 'Set the token variable', text: codexTokenCommand(os, key) },
    ];
  }
  return [{ label: `Entry in ${configFileFor(id, os)}`, text: entryDocument(id, mcpUrl, key, serverName) }];
}

/** OAuth method: the url-only entry or command, where the client takes one from a file or a command line. */
export function oauthSnippets(id: ClientId, mcpUrl: string, os: Os, serverName = DEFAULT_SERVER_NAME): Snippet[] {
  if (!CLIENTS[id].methods.oauth.supported) return [];
  if (id === 'claude-code') return [{ label: 'Command', text: claudeMcpAddCommand(serverName, mcpUrl) }];
  // These two are set up in the client's own menus (the steps say where): nothing to paste but the URL.
  if (id === 'claude-desktop' || id === 'codex') return [];
  return [{ label: `Entry in ${configFileFor(id, os)}`, text: entryDocument(id, mcpUrl, undefined, serverName) }];
}

/**
 * Automated method: the installer command with a one-time setup code, run the way that works for this
 * server; when the package is published, this server's own copy is the alternative.
 */
export function installerCommands(id: ClientId, baseUrl: string, mcpUrl: string, setupCode: string, published: boolean): { command: string; fromThisServer?: string } {
  const m = CLIENTS[id].methods.automated;
  const fromCatalog = m.supported ? m.steps({ mcpUrl, serverName: DEFAULT_SERVER_NAME, configPath: '' })[0]! : `${REGISTRY_INSTALLER} --client ${id} --url ${mcpUrl}`;
  const withCode = `${fromCatalog} --setup-code ${setupCode}`;
  const command = withCode.replace(REGISTRY_INSTALLER, installerRunner(baseUrl, published));
  return published ? { command, fromThisServer: withCode.replace(REGISTRY_INSTALLER, selfHostedRunner(baseUrl)) } : { command };
}

/** The OS this browser runs on, for config paths. */
export function guessOs(userAgent: string): Os {
  if (/Windows/i.test(userAgent)) return 'win32';
  if (/Mac OS X|Macintosh/i.test(userAgent)) return 'darwin';
  return 'linux';
}

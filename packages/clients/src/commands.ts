import { MARKETPLACE_NAME, PLUGIN_ID } from './automatic.js';
import { CODEX_TOKEN_ENV, INSTALLER_USER_AGENT } from './constants.js';

/** Arguments (after `claude`) that add the entry at user scope, as docs/clients.md ("Claude Code") gives them; no key means OAuth. */
export function claudeMcpAddArgs(serverName: string, mcpUrl: string, apiKey?: string): string[] {
  const args = ['mcp', 'add', '--scope', 'user', '--transport', 'http', serverName, mcpUrl];
  if (apiKey !== undefined)
    args.push('--header', `Authorization: Bearer ${apiKey}`, '--header', `User-Agent: ${INSTALLER_USER_AGENT}`);
  return args;
}

/** Arguments (after `claude`) that remove the user-scope entry. */
export function claudeMcpRemoveArgs(serverName: string): string[] {
  return ['mcp', 'remove', serverName, '-s', 'user'];
}

/** A command line for display, quoting each argument for a POSIX shell where needed. */
export function shellCommand(program: string, args: readonly string[]): string {
  return [program, ...args].map(shellQuote).join(' ');
}

/** The `claude mcp add …` command line a user can paste. */
export function claudeMcpAddCommand(serverName: string, mcpUrl: string, apiKey?: string): string {
  return shellCommand('claude', claudeMcpAddArgs(serverName, mcpUrl, apiKey));
}

/** `codex mcp add <name> --url <mcp_url>`: Codex's own command for a url-only (OAuth) entry in ~/.codex/config.toml. */
export function codexMcpAddCommand(serverName: string, mcpUrl: string): string {
  return shellCommand('codex', ['mcp', 'add', serverName, '--url', mcpUrl]);
}

/** How to set Codex's token variable for the user: `launchctl setenv` on macOS, a shell profile line elsewhere. */
export function codexTokenCommand(platform: NodeJS.Platform, apiKey: string): string {
  if (platform === 'darwin') return shellCommand('launchctl', ['setenv', CODEX_TOKEN_ENV, apiKey]);
  if (platform === 'win32') return `setx ${CODEX_TOKEN_ENV} "${apiKey}"`;
  return `export ${CODEX_TOKEN_ENV}=${shellQuote(apiKey)}`;
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** Arguments (after `claude`) of the plugin commands automatic mode runs, on the `cairn` marketplace and `cairn@cairn` (docs/plugin.md). */
export function claudePluginArgs(
  action: 'marketplace-add' | 'marketplace-update' | 'marketplace-remove' | 'install' | 'update' | 'uninstall',
  source = '',
): string[] {
  switch (action) {
    case 'marketplace-add':
      return ['plugin', 'marketplace', 'add', source];
    case 'marketplace-update':
      return ['plugin', 'marketplace', 'update', MARKETPLACE_NAME];
    case 'marketplace-remove':
      return ['plugin', 'marketplace', 'remove', MARKETPLACE_NAME];
    case 'install':
      return ['plugin', 'install', PLUGIN_ID, '--scope', 'user'];
    case 'update':
      return ['plugin', 'update', PLUGIN_ID];
    case 'uninstall':
      return ['plugin', 'uninstall', PLUGIN_ID, '--scope', 'user'];
  }
}

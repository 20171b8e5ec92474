import { posix, win32 } from 'node:path';
import type { ClientId } from './client-ids.js';

/** What a config path depends on; passed in so tests (and the portal) never read the real machine. */
export interface PathContext {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The user-level config file of a client on the given machine. */
export function configPath(client: ClientId, ctx: PathContext): string {
  const path = ctx.platform === 'win32' ? win32 : posix;
  const { home, env } = ctx;
  const set = (name: string) => (env[name] && env[name]!.length > 0 ? env[name] : undefined);
  const appData = set('APPDATA') ?? path.join(home, 'AppData', 'Roaming');
  const xdgConfig = set('XDG_CONFIG_HOME') ?? path.join(home, '.config');
  switch (client) {
    case 'claude-desktop':
      if (ctx.platform === 'darwin')
        return path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (ctx.platform === 'win32') return path.join(appData, 'Claude', 'claude_desktop_config.json');
      return path.join(xdgConfig, 'Claude', 'claude_desktop_config.json');
    case 'claude-code':
      return path.join(set('CLAUDE_CONFIG_DIR') ?? home, '.claude.json');
    case 'cursor':
      return path.join(home, '.cursor', 'mcp.json');
    case 'vscode':
      if (ctx.platform === 'darwin')
        return path.join(home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json');
      if (ctx.platform === 'win32') return path.join(appData, 'Code', 'User', 'mcp.json');
      return path.join(xdgConfig, 'Code', 'User', 'mcp.json');
    case 'codex':
      return path.join(set('CODEX_HOME') ?? path.join(home, '.codex'), 'config.toml');
    case 'kiro':
      return path.join(set('KIRO_HOME') ?? path.join(home, '.kiro'), 'settings', 'mcp.json');
    case 'gemini-cli':
      return path.join(set('GEMINI_CLI_HOME') ?? home, '.gemini', 'settings.json');
    case 'windsurf':
      return path.join(home, '.codeium', 'windsurf', 'mcp_config.json');
  }
}

const OVERRIDES = ['KIRO_HOME', 'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME', 'XDG_CONFIG_HOME'];

/** Every place a client's user config may be on this machine: the one in use first, then the default one an environment override moved it from. */
export function configPaths(client: ClientId, ctx: PathContext): string[] {
  const env = Object.fromEntries(Object.entries(ctx.env).filter(([name]) => !OVERRIDES.includes(name)));
  return [...new Set([configPath(client, ctx), configPath(client, { ...ctx, env })])];
}

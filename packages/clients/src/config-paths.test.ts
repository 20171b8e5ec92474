import { deepStrictEqual, equal } from 'node:assert/strict';
import { test } from 'node:test';
import { configPath, configPaths } from './config-paths.js';

const linux = { platform: 'linux' as const, home: '/home/u', env: {} };
const mac = { platform: 'darwin' as const, home: '/Users/u', env: {} };
const win = { platform: 'win32' as const, home: 'C:\\Users\\u', env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' } };

test('default locations per OS', () => {
  equal(configPath('claude-desktop', mac), '/Users/u/Library/Application Support/Claude/claude_desktop_config.json');
  equal(configPath('claude-desktop', win), 'C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
  equal(configPath('claude-desktop', linux), '/home/u/.config/Claude/claude_desktop_config.json');
  equal(configPath('claude-code', linux), '/home/u/.claude.json');
  equal(configPath('cursor', linux), '/home/u/.cursor/mcp.json');
  equal(configPath('cursor', win), 'C:\\Users\\u\\.cursor\\mcp.json');
  equal(configPath('vscode', mac), '/Users/u/Library/Application Support/Code/User/mcp.json');
  equal(configPath('vscode', linux), '/home/u/.config/Code/User/mcp.json');
  equal(configPath('vscode', win), 'C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json');
  equal(configPath('codex', linux), '/home/u/.codex/config.toml');
  equal(configPath('kiro', linux), '/home/u/.kiro/settings/mcp.json');
  equal(configPath('gemini-cli', linux), '/home/u/.gemini/settings.json');
  equal(configPath('windsurf', linux), '/home/u/.codeium/windsurf/mcp_config.json');
});

test('environment overrides', () => {
  const env = {
    KIRO_HOME: '/k',
    CODEX_HOME: '/c',
    CLAUDE_CONFIG_DIR: '/cc',
    GEMINI_CLI_HOME: '/g',
    XDG_CONFIG_HOME: '/x',
  };
  const ctx = { ...linux, env };
  equal(configPath('kiro', ctx), '/k/settings/mcp.json');
  equal(configPath('codex', ctx), '/c/config.toml');
  equal(configPath('claude-code', ctx), '/cc/.claude.json');
  equal(configPath('gemini-cli', ctx), '/g/.gemini/settings.json');
  equal(configPath('vscode', ctx), '/x/Code/User/mcp.json');
  equal(configPath('claude-desktop', ctx), '/x/Claude/claude_desktop_config.json');
  equal(
    configPath('kiro', { ...linux, env: { KIRO_HOME: '' } }),
    '/home/u/.kiro/settings/mcp.json',
    'an empty variable counts as unset',
  );
});

test('configPaths: the path in use first, then the default an override moved it from', () => {
  const ctx = { ...linux, env: { KIRO_HOME: '/k' } };
  deepStrictEqual(configPaths('kiro', ctx), ['/k/settings/mcp.json', '/home/u/.kiro/settings/mcp.json']);
  deepStrictEqual(configPaths('cursor', ctx), ['/home/u/.cursor/mcp.json']);
});

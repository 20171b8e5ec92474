import { type BlockInfo, type ClientInfo, classifyBlock, configPath } from '@cairn/clients';
import { ConfigShapeError, lineColumn } from '../files/config-error.js';
import { parseJsonConfig, shapeProblem } from '../files/json-edit.js';
import { parseTomlConfig } from '../files/toml-edit.js';
import { readConfig, resolveConfigTarget } from '../files/write-config.js';
import type { Machine } from './context.js';

/** A client's config file as found: its text, its entries, and the one this install is about. */
export interface ConfigInspection {
  path: string;
  /** The file actually edited (a symlink's target). */
  target: string;
  exists: boolean;
  /** The file already has the entries' container (mcpServers, servers, mcp_servers). */
  hasContainer: boolean;
  text: string;
  entries: Record<string, unknown>;
  existing?: { value: unknown; info?: BlockInfo };
}

/** Reads and parses the client's config file (or `path`, another place it may be); a file that does not parse throws ConfigParseError and is not touched. */
export function inspectConfig(
  client: ClientInfo,
  serverName: string,
  machine: Machine,
  path = configPath(client.id, machine),
): ConfigInspection {
  const current = readConfig(path);
  const text = current ?? '';
  const doc =
    client.format === 'toml' ? parseTomlConfig(path, text) : parseJsonConfig(path, text, client.format === 'jsonc');
  const container = doc[client.containerKey];
  if (container !== undefined && (container === null || typeof container !== 'object' || Array.isArray(container)))
    throw containerProblem(client, path, text, container);
  const entries =
    container !== null && typeof container === 'object' && !Array.isArray(container)
      ? (container as Record<string, unknown>)
      : {};
  const value = Object.hasOwn(entries, serverName) ? entries[serverName] : undefined;
  const info = value === undefined ? undefined : classifyBlock(value);
  return {
    path,
    target: resolveConfigTarget(path),
    exists: current !== undefined,
    hasContainer: container !== undefined,
    text,
    entries,
    ...(value !== undefined && { existing: { value, ...(info && { info }) } }),
  };
}

/** The entries' container holds something else: named with its place, so the user can fix it (the file is not touched). */
function containerProblem(client: ClientInfo, path: string, text: string, value: unknown): ConfigShapeError {
  const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  const holder = client.format === 'toml' ? 'a table' : 'an object';
  const problem = `"${client.containerKey}" is ${what}, not ${holder} holding the MCP entries`;
  if (client.format !== 'toml') {
    const found = shapeProblem(path, text, [client.containerKey]);
    return new ConfigShapeError(path, found?.line ?? 1, found?.column ?? 1, problem);
  }
  const at = new RegExp(`^[ \\t]*"?${client.containerKey}"?[ \\t]*=`, 'm').exec(text);
  const { line, column } = lineColumn(text, at?.index ?? 0);
  return new ConfigShapeError(path, line, column, problem);
}

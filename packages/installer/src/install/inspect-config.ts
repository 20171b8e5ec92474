import { type ClientInfo, type EntryInfo, classifyEntry, configPath } from '@cairn/clients';
import { parseJsonConfig } from '../files/json-edit.js';
import { parseTomlConfig } from '../files/toml-edit.js';
import { readConfig, resolveConfigTarget } from '../files/write-config.js';
import type { Machine } from './context.js';

/** A client's config file as found: its text, its entries, and the one this install is about. */
export interface ConfigInspection {
  path: string;
  /** The file actually edited (a symlink's target). */
  target: string;
  exists: boolean;
  text: string;
  entries: Record<string, unknown>;
  existing?: { value: unknown; info?: EntryInfo };
}

/** Reads and parses the client's config file (or `path`, another place it may be); a file that does not parse throws ConfigParseError and is not touched. */
export function inspectConfig(client: ClientInfo, serverName: string, machine: Machine, path = configPath(client.id, machine)): ConfigInspection {
  const current = readConfig(path);
  const text = current ?? '';
  const doc = client.format === 'toml' ? parseTomlConfig(path, text) : parseJsonConfig(path, text, client.format === 'jsonc');
  const container = doc[client.containerKey];
  const entries = container !== null && typeof container === 'object' && !Array.isArray(container) ? (container as Record<string, unknown>) : {};
  const value = Object.hasOwn(entries, serverName) ? entries[serverName] : undefined;
  const info = value === undefined ? undefined : classifyEntry(value);
  return {
    path,
    target: resolveConfigTarget(path),
    exists: current !== undefined,
    text,
    entries,
    ...(value !== undefined && { existing: { value, ...(info && { info }) } }),
  };
}

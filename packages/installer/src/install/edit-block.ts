import { type ClientInfo, classifyBlock, codexTomlTable, type ServerBlock } from '@cairn/clients';
import { editJson } from '../files/json-edit.js';
import { editTomlTable } from '../files/toml-edit.js';
import type { ConfigInspection } from './inspect-config.js';

/** The file's new text with the entry set (or removed, with `undefined`); equal to the old text when nothing changes. */
export function editBlock(
  client: ClientInfo,
  config: ConfigInspection,
  serverName: string,
  entry: ServerBlock | undefined,
  mcpUrl = '',
): string {
  if (entry !== undefined && config.existing && sameValue(config.existing.value, entry)) return config.text;
  if (entry === undefined && !config.existing) return config.text;
  if (client.format === 'toml') {
    const key = classifyBlock(entry)?.apiKey;
    return editTomlTable(
      config.path,
      config.text,
      client.containerKey,
      serverName,
      entry,
      codexTomlTable(serverName, mcpUrl, key),
    );
  }
  return editJson(config.text, [client.containerKey, serverName], entry, config.path);
}

/** Deep equality of plain JSON/TOML values, key order included (so a reordered entry is rewritten once, then stable). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

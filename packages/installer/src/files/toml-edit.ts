import { parse, patch } from '@decimalturn/toml-patch';
import { ConfigParseError } from './config-error.js';

/** Parses a TOML config; throws ConfigParseError naming line and column. */
export function parseTomlConfig(path: string, text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    const { line, column, message } = error as { line?: number; column?: number; message: string };
    const problem = message.split('\n').at(-1)?.trim() || 'invalid TOML';
    throw new ConfigParseError(path, line ?? 1, (column ?? 0) + 1, problem);
  }
}

/**
 * Sets (or, with `undefined`, removes) `[table.key]`, keeping comments, unknown keys and formatting.
 * A new entry is appended as `newTableText` (a readable `[table.key]` block rather than the dotted
 * inline table toml-patch would emit); an existing one is patched in place.
 */
export function editTomlTable(
  path: string,
  text: string,
  table: string,
  key: string,
  value: Record<string, unknown> | undefined,
  newTableText: string,
): string {
  const doc = parseTomlConfig(path, text);
  const container = doc[table] as Record<string, unknown> | undefined;
  const exists = container !== undefined && key in container;
  if (value === undefined) {
    if (!exists) return text;
    const { [key]: _removed, ...rest } = container;
    const next = { ...doc };
    if (Object.keys(rest).length === 0) delete next[table];
    else next[table] = rest;
    return patch(text, next);
  }
  if (!exists) {
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const separator = text.length === 0 ? '' : text.endsWith('\n') ? eol : eol + eol;
    const appended = `${text}${separator}${newTableText.replace(/\n/g, eol)}`;
    try {
      parseTomlConfig(path, appended);
      return appended;
    } catch {
      // e.g. `mcp_servers = { … }` written inline: a [mcp_servers.x] header cannot follow it.
    }
  }
  return patch(text, { ...doc, [table]: { ...container, [key]: value } });
}

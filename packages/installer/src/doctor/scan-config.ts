import { statSync } from 'node:fs';
import {
  type ClientInfo,
  classifyBlock,
  diagnoseBlock,
  KEY_PREFIX,
  looksLikeCairn,
  mcpUrlFor,
  type ServerBlock,
} from '@cairn/clients';
import { installerCommand } from '../cli/self-command.js';
import { ConfigParseError, ConfigShapeError } from '../files/config-error.js';
import type { Machine } from '../install/context.js';
import { type ConfigInspection, inspectConfig } from '../install/inspect-config.js';

/** One problem doctor found, with what `--fix` would do about it (nothing when `repair` is absent). */
export interface Finding {
  entry?: string;
  problem: string;
  fix: string;
  repair?: { kind: 'entry'; value: ServerBlock; url: string; apiKey?: string } | { kind: 'mode' };
}

/** A config file doctor read: where it is, whether the client reads it, and what is wrong in it. */
export interface ConfigReport {
  client: ClientInfo;
  path: string;
  /** False for a default location an environment override moved the client away from. */
  inUse: boolean;
  inspection?: ConfigInspection;
  cairnBlocks: string[];
  findings: Finding[];
}

/** Reads one config file and lists its problems; undefined when the file does not exist. */
export function scanConfig(
  client: ClientInfo,
  path: string,
  inUse: boolean,
  serverName: string,
  machine: Machine,
): ConfigReport | undefined {
  let inspection: ConfigInspection;
  try {
    inspection = inspectConfig(client, serverName, machine, path);
  } catch (error) {
    if (!(error instanceof ConfigParseError)) throw error;
    const findings = [
      {
        problem: `${error instanceof ConfigShapeError ? 'cannot be used' : 'does not parse'} (${error.line}:${error.column}: ${error.problem})`,
        fix: 'repair the file by hand (doctor leaves it untouched)',
      },
    ];
    return { client, path, inUse, cairnBlocks: [], findings };
  }
  if (!inspection.exists) return undefined;
  const cairnBlocks = pickCairnBlocks(inspection.entries, serverName);
  const findings: Finding[] = [];
  for (const name of cairnBlocks) {
    const diagnosis = diagnoseBlock(client, inspection.entries[name]);
    if (!diagnosis) continue;
    const { repaired, info, apiKey } = diagnosis;
    for (const { problem, fix } of diagnosis.problems) {
      findings.push({
        entry: name,
        problem,
        fix,
        ...(repaired &&
          info.url && {
            repair: { kind: 'entry' as const, value: repaired, url: info.url, ...(apiKey && { apiKey }) },
          }),
      });
    }
  }
  findings.push(...bothMethods(client, inspection, cairnBlocks), ...duplicates(client, inspection, cairnBlocks));
  const mode = machine.platform === 'win32' ? undefined : statSync(inspection.target).mode & 0o777;
  if (mode !== undefined && (mode & 0o077) !== 0 && inspection.text.includes(KEY_PREFIX)) {
    findings.push({
      problem: `holds an API key but is mode 0${mode.toString(8)}: other users can read it`,
      fix: `chmod 600 ${inspection.target}`,
      repair: { kind: 'mode' },
    });
  }
  return { client, path, inUse, inspection, cairnBlocks, findings };
}

/** Entries that are Cairn's by name or content, plus any other entry for the same URL as one of them. */
function pickCairnBlocks(entries: Record<string, unknown>, serverName: string): string[] {
  const named = Object.keys(entries).filter((name) => looksLikeCairn(name, entries[name], serverName));
  const urls = new Set(named.map((name) => urlOf(entries[name])).filter(Boolean));
  return Object.keys(entries).filter((name) => named.includes(name) || urls.has(urlOf(entries[name])));
}

function bothMethods(client: ClientInfo, inspection: ConfigInspection, names: string[]): Finding[] {
  const byUrl = new Map<string, { oauth: string[]; apiKey: string[] }>();
  for (const name of names) {
    const info = classifyBlock(inspection.entries[name]);
    const url = urlOf(inspection.entries[name]);
    if (!info || !url) continue;
    const group = byUrl.get(url) ?? { oauth: [], apiKey: [] };
    (info.method === 'oauth' ? group.oauth : group.apiKey).push(name);
    byUrl.set(url, group);
  }
  return [...byUrl]
    .filter(([, g]) => g.oauth.length > 0 && g.apiKey.length > 0)
    .map(([url, g]) => ({
      problem: `both methods configured for ${url}: OAuth entry "${g.oauth.join('", "')}" and API-key entry "${g.apiKey.join('", "')}"; the client may pick OAuth and ignore the key`,
      fix: `decide which to keep, then remove the other: ${installerCommand(`--client ${client.id} --uninstall --server-name <name>`, url)}`,
    }));
}

/** Entries with the same address and the same key: the client starts Cairn twice (and shows every tool twice). */
function duplicates(client: ClientInfo, inspection: ConfigInspection, names: string[]): Finding[] {
  const first = new Map<string, string>();
  const findings: Finding[] = [];
  for (const name of names) {
    const info = classifyBlock(inspection.entries[name]);
    const url = urlOf(inspection.entries[name]);
    if (!info || !url) continue;
    const id = `${url}\0${info.method}\0${info.apiKey ?? ''}`;
    const earlier = first.get(id);
    if (earlier === undefined) {
      first.set(id, name);
      continue;
    }
    findings.push({
      entry: name,
      problem: `repeats "${earlier}": same address (${url}) and same ${info.method === 'oauth' ? 'sign-in' : 'key'}, so the client runs Cairn twice`,
      fix: `remove one: ${installerCommand(`--client ${client.id} --uninstall --server-name ${name}`, url)}`,
    });
  }
  return findings;
}

function urlOf(value: unknown): string | undefined {
  const url = classifyBlock(value)?.url;
  return url === undefined ? undefined : mcpUrlFor(url);
}

import { chmodSync, mkdirSync } from 'node:fs';
import { automaticPaths, type ClientInfo } from '@cairn/clients';
import { type ConfigCreated, readManifest, saveManifest } from '../automatic/manifest.js';
import { editJson, parseJsonConfig } from '../files/json-edit.js';
import { missingDirs } from '../files/write-config.js';
import type { Machine } from './context.js';
import type { ConfigInspection } from './inspect-config.js';

/** What writing an entry into this config will create: measured before the write. */
export function whatWriteCreates(config: ConfigInspection): Omit<ConfigCreated, 'client' | 'path'> {
  return { createdFile: !config.exists, createdContainer: !config.hasContainer, createdDirs: missingDirs(config.path) };
}

/** Records in ~/.cairn/installed.json what the first entry in a config created, so uninstall can take exactly that away again. */
export function rememberCreated(
  machine: Machine,
  client: ClientInfo,
  path: string,
  created: Omit<ConfigCreated, 'client' | 'path'>,
): void {
  if (!created.createdFile && !created.createdContainer) return;
  const paths = automaticPaths(machine);
  const manifest = readManifest(paths.manifest);
  if (manifest.configs.some((c) => c.client === client.id && c.path === path)) return;
  manifest.configs.push({ client: client.id, path, ...created });
  mkdirSync(paths.cairnDir, { recursive: true, mode: 0o700 });
  if (machine.platform !== 'win32') chmodSync(paths.cairnDir, 0o700);
  saveManifest(paths.manifest, manifest);
}

/** After an entry is taken out: the text without a container the installer created and that is now empty, and whether the file (created by it) is now empty. */
export function tidyAfterRemoval(
  machine: Machine,
  client: ClientInfo,
  config: ConfigInspection,
  after: string,
): { text: string; deleteFile: boolean; record?: ConfigCreated } {
  const record = readManifest(automaticPaths(machine).manifest).configs.find(
    (c) => c.client === client.id && c.path === config.path,
  );
  if (!record) return { text: after, deleteFile: false };
  let text = after;
  if (client.format !== 'toml') {
    const container = parseJsonConfig(config.path, text, client.format === 'jsonc')[client.containerKey];
    const empty = container !== null && typeof container === 'object' && Object.keys(container).length === 0;
    if (record.createdContainer && empty) text = editJson(text, [client.containerKey], undefined, config.path);
    const rest = text.replace(/^\uFEFF/, '').trim();
    return {
      text,
      deleteFile:
        record.createdFile &&
        (rest === '' ||
          (Object.keys(parseJsonConfig(config.path, text, client.format === 'jsonc')).length === 0 &&
            !/\/[/*]/.test(rest))),
      record,
    };
  }
  return { text, deleteFile: record.createdFile && text.trim() === '', record };
}

/** Forgets a config's record once the installer's entries are all gone from it. */
export function forgetCreated(machine: Machine, record: ConfigCreated): void {
  const path = automaticPaths(machine).manifest;
  const manifest = readManifest(path);
  manifest.configs = manifest.configs.filter((c) => !(c.client === record.client && c.path === record.path));
  saveManifest(path, manifest);
}

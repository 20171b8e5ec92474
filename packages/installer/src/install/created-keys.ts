import { chmodSync, mkdirSync } from 'node:fs';
import { automaticPaths, type ClientId } from '@cairn/clients';
import { readManifest, saveManifest, sha256 } from '../automatic/manifest.js';
import type { Machine } from './context.js';

/** Records that the installer made this key (from a setup code) for the entry, so uninstall may revoke it. Only its hash is kept. */
export function rememberCreatedKey(machine: Machine, client: ClientId, serverName: string, key: string): void {
  const paths = automaticPaths(machine);
  const manifest = readManifest(paths.manifest);
  const hash = sha256(key);
  if (manifest.keys.some((k) => k.client === client && k.serverName === serverName && k.sha256 === hash)) return;
  manifest.keys = [
    ...manifest.keys.filter((k) => !(k.client === client && k.serverName === serverName)),
    { client, serverName, sha256: hash },
  ];
  mkdirSync(paths.cairnDir, { recursive: true, mode: 0o700 });
  if (machine.platform !== 'win32') chmodSync(paths.cairnDir, 0o700);
  saveManifest(paths.manifest, manifest);
}

/** Whether the installer made this key for the entry. */
export function wasCreatedHere(machine: Machine, client: ClientId, serverName: string, key: string): boolean {
  const hash = sha256(key);
  return readManifest(automaticPaths(machine).manifest).keys.some(
    (k) => k.client === client && k.serverName === serverName && k.sha256 === hash,
  );
}

/** Forgets the entry's key record (the entry is gone, or its key was replaced). */
export function forgetCreatedKey(machine: Machine, client: ClientId, serverName: string): void {
  const path = automaticPaths(machine).manifest;
  const manifest = readManifest(path);
  if (!manifest.keys.some((k) => k.client === client && k.serverName === serverName)) return;
  manifest.keys = manifest.keys.filter((k) => !(k.client === client && k.serverName === serverName));
  saveManifest(path, manifest);
}

import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ClientId } from '@cairn/clients';
import { missingDirs, removeBackups, removeEmptyDirs, writeConfig } from '../files/write-config.js';
import { type Manifest, type OwnedFile, sha256 } from './manifest.js';

/** A whole file automatic mode writes: its text and the mode it ends with (0600 for anything holding the key). */
export interface DesiredFile {
  path: string;
  content: string;
  mode: number;
}

/** What happened to a file. */
export type FileChange = 'added' | 'updated' | 'unchanged';

/** Writes the file unless it already holds `content`, and records it as the client's. A file someone else wrote or changed is backed up first. */
export function placeFile(
  manifest: Manifest,
  client: ClientId,
  file: DesiredFile,
  platform: NodeJS.Platform,
): FileChange {
  const record = manifest.files.find((f) => f.path === file.path);
  const current = existsSync(file.path) ? readFileSync(file.path, 'utf8') : undefined;
  const createdDirs = record ? createdDirsOf(record) : missingDirs(file.path);
  let change: FileChange = 'unchanged';
  if (current !== file.content) {
    const ours = current === undefined || (record !== undefined && sha256(current) === record.sha256);
    writeConfig(file.path, file.content, { secret: file.mode === 0o600, mode: file.mode, backup: !ours });
    change = current === undefined ? 'added' : 'updated';
  } else if (platform !== 'win32' && (statSync(file.path).mode & 0o777) !== file.mode) {
    chmodSync(file.path, file.mode);
    change = 'updated';
  }
  const clients = [...new Set([...(record?.clients ?? []), client])];
  const next: OwnedFile = {
    path: file.path,
    sha256: sha256(file.content),
    clients,
    ...(createdDirs.length > 0 && { createdDirs }),
  };
  manifest.files = [...manifest.files.filter((f) => f.path !== file.path), next];
  return change;
}

/** What releasing a file did: removed it (and the folders it left empty), kept it for other clients, or kept it because it changed since the installer wrote it. */
export type Release =
  | { kind: 'removed' | 'gone'; dirs: string[] }
  | { kind: 'still-used'; by: ClientId[] }
  | { kind: 'edited' };

/** Drops the client's claim on a file; the last claim deletes it (and its backup), unless the user changed it since (then it stays and is forgotten). */
export function releaseFile(manifest: Manifest, client: ClientId, path: string): Release {
  const record = manifest.files.find((f) => f.path === path);
  if (!record) return { kind: 'gone', dirs: [] };
  const others = record.clients.filter((c) => c !== client);
  if (others.length > 0) {
    manifest.files = manifest.files.map((f) => (f.path === path ? { ...f, clients: others } : f));
    return { kind: 'still-used', by: others };
  }
  manifest.files = manifest.files.filter((f) => f.path !== path);
  if (!existsSync(path)) return { kind: 'gone', dirs: createdDirsOf(record) };
  if (sha256(readFileSync(path, 'utf8')) !== record.sha256) return { kind: 'edited' };
  rmSync(path);
  removeBackups(path);
  // Folders shared by several files (skills/) empty out only after the last: the caller removes them at the end.
  removeEmptyDirs(createdDirsOf(record));
  return { kind: 'removed', dirs: createdDirsOf(record) };
}

function createdDirsOf(record: OwnedFile): string[] {
  return record.createdDirs ?? (record.createdDir ? [dirname(record.path)] : []);
}

import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The file a config path really names: a symlink is followed so its target is edited and the link kept. */
export function resolveConfigTarget(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) return realpathSync(path);
  } catch {
    // Missing, or a dangling link: writing to the path itself is all that can be done.
  }
  return path;
}

/** The file's text, or undefined when it does not exist. */
export function readConfig(path: string): string | undefined {
  return existsSync(path) ? readFileSync(resolveConfigTarget(path), 'utf8') : undefined;
}

/** Options for writeConfig. */
export interface WriteOptions {
  /** The file holds a key: it ends mode 0600 whatever it had. */
  secret: boolean;
  /** The mode to end with when not secret (default: the file's own, else 0644). */
  mode?: number;
  /** Back up the previous file first (default); off for a file the installer wrote itself and nobody changed since. */
  backup?: boolean;
}

/** What writeConfig did. */
export interface WriteResult {
  target: string;
  backup?: string;
}

/** Backs the file up, then replaces it atomically (temp file in the same folder, fsync, rename); a symlink's target is written. */
export function writeConfig(path: string, content: string, options: WriteOptions): WriteResult {
  const target = resolveConfigTarget(path);
  const dir = dirname(target);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const existingMode = existsSync(target) ? statSync(target).mode & 0o777 : undefined;
  const backup = existingMode === undefined || options.backup === false ? undefined : backupConfig(target);
  const mode = options.secret ? 0o600 : (options.mode ?? existingMode ?? 0o644);
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dir);
  return { target, ...(backup && { backup }) };
}

/** Tightens a key-holding file to 0600 without rewriting it; true when its mode changed. */
export function protectConfig(path: string): boolean {
  const target = resolveConfigTarget(path);
  if (!existsSync(target) || (statSync(target).mode & 0o777) === 0o600) return false;
  chmodSync(target, 0o600);
  return true;
}

/** The one backup kept per file: `<file>.cairn-backup`, the file as it was before the installer's latest change. */
export function backupPath(path: string): string {
  return `${resolveConfigTarget(path)}.cairn-backup`;
}

function backupConfig(target: string): string {
  const backup = `${target}.cairn-backup`;
  // Older installers stamped each backup (<file>.<time>.cairn-backup) and they piled up, each holding a key.
  removeStampedBackups(target);
  copyFileSync(target, backup);
  chmodSync(backup, 0o600);
  return backup;
}

/** Deletes the installer's backups of a file (they may hold a key); returns the ones it deleted. */
export function removeBackups(path: string): string[] {
  const target = resolveConfigTarget(path);
  const removed = removeStampedBackups(target);
  if (existsSync(`${target}.cairn-backup`)) {
    rmSync(`${target}.cairn-backup`);
    removed.push(`${target}.cairn-backup`);
  }
  return removed;
}

function removeStampedBackups(target: string): string[] {
  const dir = dirname(target);
  const name = basename(target).replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  const stamped = new RegExp(`^${name}\\.\\d{8}T\\d{6}(-\\d+)?\\.cairn-backup$`);
  const found = existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => stamped.test(name))
        .map((name) => join(dir, name))
    : [];
  for (const file of found) rmSync(file);
  return found;
}

/** The folders that do not exist yet on the way to `path`'s folder, outermost first: what writing it will create. */
export function missingDirs(path: string): string[] {
  const dirs: string[] = [];
  for (let dir = dirname(resolveConfigTarget(path)); !existsSync(dir); dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return dirs;
}

/** Removes these folders, innermost first, each only while it is empty; returns the ones removed. */
export function removeEmptyDirs(dirs: string[]): string[] {
  const removed: string[] = [];
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    if (!existsSync(dir) || readdirSync(dir).length > 0) continue;
    rmdirSync(dir);
    removed.push(dir);
  }
  return removed;
}

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms (Windows) cannot open a directory; the rename is still atomic there.
  }
}

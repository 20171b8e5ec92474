import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, chmodSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
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
  now?: Date;
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
  const backup = existingMode === undefined || options.backup === false ? undefined : backupConfig(target, options.now ?? new Date());
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

function backupConfig(target: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  let backup = `${target}.${stamp}.cairn-backup`;
  for (let n = 2; existsSync(backup); n++) backup = `${target}.${stamp}-${n}.cairn-backup`;
  copyFileSync(target, backup);
  chmodSync(backup, 0o600);
  return backup;
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

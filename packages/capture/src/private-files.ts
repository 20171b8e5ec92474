import { appendFileSync, chmodSync, mkdirSync, statSync } from 'node:fs';

/** Creates the directory (mode 0700) if it is missing. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Appends to a file that is created 0600 and tightened to 0600 if someone loosened it. */
export function appendPrivate(file: string, text: string): void {
  appendFileSync(file, text, { mode: 0o600 });
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
}

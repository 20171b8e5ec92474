import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Writes a file (and its folders) for a test. */
export function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A file's permission bits. */
export function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** A JSON file's value. */
export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Every file under a folder with its bytes, for "a second run changes no byte" checks. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[path] = `${modeOf(path).toString(8)} ${readFileSync(path, 'utf8')}`;
    }
  };
  walk(dir);
  return out;
}

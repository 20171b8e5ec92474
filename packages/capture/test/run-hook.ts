import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleCapture } from '../scripts/bundle.mjs';

/** What one real hook process did. */
export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Bundles the capture script afresh into a temp dir and returns the file's path. */
export async function freshBundle(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'cairn-capture-bundle-')), 'cairn-capture.js');
  writeFileSync(file, await bundleCapture());
  return file;
}

/** Runs `node <script> <client> <event>` the way a hook does; `stdin: null` leaves the pipe open, as a misbehaving client might. */
export function runHook(
  script: string,
  args: string[],
  options: { home: string; stdin: string | null; env?: Record<string, string>; cwd?: string },
): Promise<HookRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [script, ...args], {
    cwd: options.cwd ?? tmpdir(),
    env: { PATH: process.env.PATH ?? '', HOME: options.home, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  if (options.stdin !== null) child.stdin.end(options.stdin);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
}

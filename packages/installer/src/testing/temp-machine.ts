import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Machine } from '../install/context.js';
import { main } from '../main.js';

/** A Machine in a fresh temp home: nothing on PATH unless given, output captured, no terminal. */
export interface TempMachine extends Machine {
  lines: string[];
  errors: string[];
  ran: string[][];
  /** Runs the installer with these flags; returns the exit code. */
  install: (...argv: string[]) => Promise<number>;
  cleanup: () => void;
}

/** Options for tempMachine. */
export interface TempMachineOptions {
  platform?: NodeJS.Platform;
  env?: Record<string, string>;
  /** Programs found on PATH, by name → full path. */
  programs?: Record<string, string>;
  /** Default: loopback addresses (test servers) are reached for real; any other host gets offlineCairn's answer. */
  fetch?: typeof fetch;
}

/** Stands in for a Cairn on any non-loopback host, so tests with example addresses never leave the machine. */
export const offlineCairn: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return globalThis.fetch(input, init);
  const you = { id: 'usr_offline', email: 'offline@example.com', name: 'Offline Tester' };
  const answer = {
    jsonrpc: '2.0',
    id: 1,
    result: {
      content: [{ type: 'text', text: 'Datapacks' }],
      structuredContent: { you, datapacks: [{ id: 'dpk_1', name: 'Personal' }] },
    },
  };
  return new Response(`event: message\ndata: ${JSON.stringify(answer)}\n\n`, {
    headers: { 'content-type': 'text/event-stream' },
  });
};

/** Makes a throwaway home so tests never touch the real one. */
export function tempMachine(options: TempMachineOptions = {}): TempMachine {
  const home = mkdtempSync(join(tmpdir(), 'cairn-installer-home-'));
  const lines: string[] = [];
  const errors: string[] = [];
  const ran: string[][] = [];
  const env = { HOME: home, PATH: process.env.PATH ?? '', ...options.env };
  const machine: TempMachine = {
    platform: options.platform ?? 'linux',
    home,
    env,
    hostname: 'test-host',
    cwd: home,
    out: (line) => lines.push(line),
    run: async (program, args) => {
      ran.push([program, ...args]);
      const path = options.programs?.[program];
      if (!path) return { code: 127, stdout: '', stderr: `${program}: not found` };
      // Asynchronous: a Cairn under test may be answering from this same process.
      return new Promise((resolve) => {
        execFile(path, args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
          resolve({ code: error ? Number((error as { code?: unknown }).code) || 1 : 0, stdout, stderr });
        });
      });
    },
    which: (program) => options.programs?.[program],
    askSecret: async () => undefined,
    confirm: async () => undefined,
    fetch: options.fetch ?? offlineCairn,
    lines,
    errors,
    ran,
    install: (...argv) => main(argv, machine, 'v20.20.2', (line) => errors.push(line)),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
  return machine;
}

/** Runs `fn` on a fresh temporary machine and removes it afterwards, whatever happens. */
export async function inHome(fn: (m: TempMachine) => Promise<void>, options?: TempMachineOptions): Promise<void> {
  const m = tempMachine(options);
  try {
    await fn(m);
  } finally {
    m.cleanup();
  }
}

import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Machine } from '../install/context.js';

/** The machine the installer is running on: real home, environment, terminal and child processes. */
export function realMachine(env: NodeJS.ProcessEnv = process.env): Machine {
  return {
    platform: process.platform,
    home: homedir(),
    env,
    hostname: hostname(),
    cwd: process.cwd(),
    out: (line) => process.stdout.write(`${line}\n`),
    run: (program, args) => runProgram(program, args, env),
    which: (program) => which(program, env),
    askSecret: (prompt) => (process.stdin.isTTY ? askHidden(prompt) : Promise.resolve(undefined)),
    confirm: async (question) => {
      if (!process.stdin.isTTY) return undefined;
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await new Promise<string>((resolve) => rl.question(`${question} [Y/n] `, resolve));
      rl.close();
      return !/^n/i.test(answer.trim());
    },
    fetch: globalThis.fetch,
  };
}

function runProgram(
  program: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => resolve({ code: 127, stdout, stderr: error.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

function which(program: string, env: NodeJS.ProcessEnv): string | undefined {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const ext of exts) {
      const candidate = join(dir, program + ext);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

async function askHidden(prompt: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  process.stderr.write(prompt);
  // Swallow the echo of each typed character so the key never shows on screen.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
  return answer;
}

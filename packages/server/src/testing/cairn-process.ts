import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../cli/main.ts', import.meta.url));

/** `cairn serve` in a child process of its own, so a test can see whether the process itself survives. */
export interface CairnProcess {
  baseUrl: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** The exit code or signal once it has exited; undefined while it runs. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  stop(): Promise<void>;
}

/**
 * Starts `cairn serve` from the sources (through tsx, so the test runs the code under test, not a stale
 * build) with the given environment, and resolves once it listens.
 */
export async function startCairnProcess(env: Record<string, string>, port: number): Promise<CairnProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: String(port), CAIRN_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => ((exit = { code, signal }), resolve())));
  const deadline = Date.now() + 60_000;
  while (!output.includes('Cairn is running.')) {
    if (exit) throw new Error(`cairn serve exited (${JSON.stringify(exit)}) before it listened:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`cairn serve did not start within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    exited: () => exit,
    async stop() {
      if (exit) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

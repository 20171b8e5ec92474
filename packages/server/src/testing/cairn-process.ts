import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const BUILT_BIN = join(SERVER_ROOT, 'bin', 'cairn.js');
const BUILT_MAIN = join(SERVER_ROOT, 'dist', 'cli', 'main.js');

/** `cairn serve` in a child process of its own, so a test can see whether the process itself survives, and measure its memory apart from the test's. */
export interface CairnProcess {
  baseUrl: string;
  pid: number;
  /** What runs: the sources through tsx, or the build. */
  runs: 'sources' | 'build';
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** The exit code or signal once it has exited; undefined while it runs. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Its resident memory now (VmRSS), in bytes. */
  rss(): number;
  /** Its peak resident memory so far (VmHWM), in bytes. */
  peakRss(): number;
  stop(): Promise<void>;
}

/** Options for startCairnProcess. */
export interface CairnProcessOptions {
  /**
   * Run the build (bin/cairn.js, as operators do) when it is newer than every source file. For
   * memory measurements: tsx's loader thread adds 60-100 MB of its own to the resident memory.
   */
  preferBuild?: boolean;
  /** Options for node itself, before the script (for example `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
}

/**
 * Starts `cairn serve` from the sources (through tsx, so the test runs the code under test, not a stale
 * build) with the given environment, and resolves once it listens.
 */
export async function startCairnProcess(
  env: Record<string, string>,
  port: number,
  options: CairnProcessOptions = {},
): Promise<CairnProcess> {
  const runs = options.preferBuild && buildIsCurrent() ? 'build' : 'sources';
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...(runs === 'build' ? [BUILT_BIN] : ['--import', 'tsx', MAIN]), 'serve'],
    {
      cwd: SERVER_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        HOST: '127.0.0.1',
        PORT: String(port),
        CAIRN_LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  const deadline = Date.now() + 60_000;
  while (!output.includes('Cairn is running.')) {
    if (exit) throw new Error(`cairn serve exited (${JSON.stringify(exit)}) before it listened:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`cairn serve did not start within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid!;
  const status = (field: 'VmRSS' | 'VmHWM') => {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    if (!line) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(/(\d+)\s*kB/.exec(line)![1]) * 1024;
  };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid,
    runs,
    output: () => output,
    exited: () => exit,
    rss: () => status('VmRSS'),
    peakRss: () => status('VmHWM'),
    async stop() {
      if (exit) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The node arguments that run the `cairn` command: the build (bin/cairn.js, as operators run it) when it
 * is newer than every source file, which it is after `npm install` and in CI, else the sources through
 * tsx, so a test never runs a stale build. A start through tsx costs about 2.5 times the CPU of the
 * build's (its loader thread resolves every module), and the CLI suites start the command dozens of times.
 */
export function cairnCommand(): string[] {
  return buildIsCurrent() ? [BUILT_BIN] : ['--import', 'tsx', MAIN];
}

/** dist/ was built after the last change to any source file it is built from. */
function buildIsCurrent(): boolean {
  if (!existsSync(BUILT_MAIN)) return false;
  const builtAt = statSync(BUILT_MAIN).mtimeMs;
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return entry.name === 'testing' ? 0 : newest(path);
        return entry.name.endsWith('.test.ts') ? 0 : statSync(path).mtimeMs;
      }),
    );
  return newest(join(SERVER_ROOT, 'src')) <= builtAt;
}

/**
 * The measured Cairn as an operator runs it: `cairn serve` (the build, started with bin/cairn.js's
 * flags) in a process of its own, on the data the bench's child seeded. Its RSS and CPU are then
 * the server's alone, without the seeding's leftovers, the TypeScript loader and the bench's IPC,
 * which add some 90 MB to the child's RSS. CPU time and RSS are read from /proc (Linux).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dropTestDatabase } from '../src/testing/postgres.js';
import { freePort } from '../src/testing/test-cairn.js';

export interface ServedCairn {
  url: string;
  /** CPU time the server has used so far (user + system), in microseconds. */
  cpuMicros(): number;
  /** Its resident memory now, as the operating system counts it. */
  rssMb(): number;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

const BIN = new URL('../bin/cairn.js', import.meta.url).pathname;

/** Starts `cairn serve` with these settings (a seeded child's, from its hand-over) on a free port; resolves once /healthz answers. */
export async function serveSeeded(env: Record<string, string>): Promise<ServedCairn> {
  const port = await freePort();
  // The flag bin/cairn.js's shebang gives `npm start`, which `node bin/cairn.js` would not.
  const server = spawn(process.execPath, ['--no-concurrent-recompilation', BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null)
      throw new Error(`cairn serve exited (code ${server.exitCode}) before it answered /healthz`);
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > until) throw new Error('cairn serve did not answer /healthz within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `${base}/mcp`,
    cpuMicros: () => procCpuMicros(server),
    rssMb: () =>
      Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024),
    async close() {
      server.kill('SIGTERM');
      await exited;
      if (env.DATABASE_URL) await dropTestDatabase(env.DATABASE_URL);
      if (env.CAIRN_DATA_DIR) rmSync(env.CAIRN_DATA_DIR, { recursive: true, force: true });
    },
  };
}

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms on Linux). */
function procCpuMicros(process: ChildProcess): number {
  const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './test-cairn.js';

/**
 * A PostgreSQL server of the test's own (initdb into a temp folder, its own port), which the test may
 * stop and start at will. The shared server on 5432 must never be restarted: other tests use it.
 */
export interface PrivatePostgres {
  /** URL of the `postgres` database, trust auth. */
  url: string;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Stops it if running and deletes its files; safe to call more than once. */
  destroy(): void;
}

/** Debian's postgresql package puts its tools under /usr/lib/postgresql/<major>/bin; the newest wins. */
function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0]) return join(root, versions[0], 'bin');
  throw new Error(
    `No PostgreSQL server binaries under ${root}/<version>/bin (pg_ctl, initdb). Install Debian's "postgresql" package (.ci/run does) to run the PostgreSQL restart test.`,
  );
}

/** Creates and starts the cluster. As root it runs as the `postgres` OS user: PostgreSQL refuses to run as root. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    if (!Number.isInteger(uid) || !Number.isInteger(gid))
      throw new Error('Running as root, but there is no "postgres" OS user to run the private PostgreSQL server as.');
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    try {
      // cwd: the postgres user may not be allowed into the checkout (CI runs as root, e.g. under /root).
      execFileSync(command, argv, { cwd: dir, stdio: 'pipe', timeout: 60_000 });
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: Buffer; stdout?: Buffer };
      const serverLog = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
      throw new Error(`${tool} ${args.join(' ')} failed: ${stderr ?? ''}${stdout ?? ''}\n${serverLog}`);
    }
  };
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const start = () => {
    run('pg_ctl', ['-D', data, '-o', options, '-l', logFile, '-w', '-t', '60', 'start']);
    running = true;
  };
  const stop = (mode: 'fast' | 'immediate' = 'fast') => {
    run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    running = false;
  };
  try {
    start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy() {
      try {
        if (running) stop('immediate');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

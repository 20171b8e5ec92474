// Runs podman the way these machines need it, without changing the machine's own configuration:
// runc with cgroupfs (crun fails on cgroups in hybrid mode here) and ulimits the kernel accepts, set in
// a containers.conf of the test's own (CONTAINERS_CONF), which podman-compose's podman reads too. The compose
// set-ups get a bridge network of their own (netavark, service names by aardvark-dns), as with docker compose.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const confDir = mkdtempSync(join(tmpdir(), 'cairn-podman-'));
const confFile = join(confDir, 'containers.conf');
writeFileSync(
  confFile,
  [
    '[containers]',
    'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]',
    '[engine]',
    'runtime = "runc"',
    'cgroup_manager = "cgroupfs"',
    'events_logger = "file"',
    '[engine.runtimes]',
    'runc = ["/usr/sbin/runc", "/usr/bin/runc"]',
    '',
  ].join('\n'),
);
export const podmanEnv = { ...process.env, CONTAINERS_CONF: confFile };

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman args…` to its end; rejects with its stderr unless `allowFailure`. */
export function podman(
  args: string[],
  options: { input?: string; allowFailure?: boolean; echo?: boolean } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', args, { env: podmanEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (options.echo) process.stderr.write(d);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (options.echo) process.stderr.write(d);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const result = { code: code ?? 1, stdout, stderr };
      if (result.code !== 0 && !options.allowFailure)
        reject(new Error(`podman ${args.join(' ')} exited ${result.code}: ${stderr.trim().slice(-2000)}`));
      else resolve(result);
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * `podman-compose args…` with `env` added. Version 1.0.3 (Debian bookworm's) exits 0 whatever its podman
 * commands did, printing each one and then `exit code: N`: so a non-zero N fails the call here, and the
 * result's stdout is what the commands printed, without those lines (they hold the services' environment).
 */
export async function podmanCompose(
  args: string[],
  env: Record<string, string>,
  options: { input?: string; allowFailure?: boolean } = {},
): Promise<Result> {
  const result = await new Promise<Result>((resolve, reject) => {
    const child = spawn('podman-compose', args, {
      env: { ...podmanEnv, PYTHONUNBUFFERED: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
  const lines = result.stdout.split('\n');
  const codes = lines.flatMap((line) => /^exit code: (-?\d+)$/.exec(line)?.[1] ?? []).map(Number);
  const own = (line: string) =>
    /^(exit code: |podman |\['podman'|using podman version|podman-composer? version|\*\* )/.test(line);
  const failed = result.code !== 0 ? result.code : (codes.find((c) => c !== 0) ?? 0);
  const out = { code: failed, stdout: lines.filter((l) => !own(l)).join('\n'), stderr: result.stderr };
  if (failed !== 0 && !options.allowFailure)
    throw new Error(`podman-compose ${args.join(' ')} exited ${failed}: ${result.stderr.trim().slice(-2000)}`);
  return out;
}

/** The tools this test needs, or why they are missing. */
export function missingTools(): string | undefined {
  if (process.platform !== 'linux') return 'the container test runs on Linux only';
  if (process.getuid?.() !== 0) return 'the container test runs podman as root (mmdebstrap builds a root file system)';
  for (const tool of ['podman', 'podman-compose', 'mmdebstrap', 'runc']) {
    if (spawnSync('sh', ['-c', `command -v ${tool} || test -x /usr/sbin/${tool}`]).status !== 0) {
      return `${tool} is not installed (apt-get install podman podman-compose aardvark-dns mmdebstrap runc)`;
    }
  }
  if (!existsSync('/usr/lib/podman/aardvark-dns'))
    return 'aardvark-dns is not installed (apt-get install aardvark-dns): the compose services would not find each other by name';
  return undefined;
}

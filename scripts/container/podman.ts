// Runs podman the way these machines need it, without changing the machine's own configuration:
// runc with cgroupfs (crun fails on cgroups in hybrid mode here) and ulimits the kernel accepts, set in
// a containers.conf of the test's own (CONTAINERS_CONF). Every container uses the host's network and
// listens on loopback only, so nothing is bridged, NATed or published beyond 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const confDir = mkdtempSync(join(tmpdir(), 'cairn-podman-'));
const confFile = join(confDir, 'containers.conf');
writeFileSync(
  confFile,
  [
    '[containers]',
    'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]',
    'netns = "host"',
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
export function podman(args: string[], options: { input?: string; allowFailure?: boolean; echo?: boolean } = {}): Promise<Result> {
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
      if (result.code !== 0 && !options.allowFailure) reject(new Error(`podman ${args.join(' ')} exited ${result.code}: ${stderr.trim().slice(-2000)}`));
      else resolve(result);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** The tools this test needs, or why they are missing. */
export function missingTools(): string | undefined {
  if (process.platform !== 'linux') return 'the container test runs on Linux only';
  if (process.getuid?.() !== 0) return 'the container test runs podman as root (mmdebstrap builds a root file system)';
  for (const tool of ['podman', 'mmdebstrap', 'runc']) {
    if (spawnSync('sh', ['-c', `command -v ${tool} || test -x /usr/sbin/${tool}`]).status !== 0) {
      return `${tool} is not installed (apt-get install podman mmdebstrap runc)`;
    }
  }
  return undefined;
}

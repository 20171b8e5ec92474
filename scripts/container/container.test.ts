// `npm run test:container`: builds Cairn's image from the Dockerfile on a base made here from Debian's packages
// (images.ts), starts compose.yaml's set-up (PostgreSQL, two instances, the nginx proxy with deploy/nginx.conf.template)
// and compose.sqlite.yaml's with podman, and checks them as an operator and an AI client meet them.
// Podman is driven directly: every container is on the host's network on loopback ports of its own, so the
// compose files' service names become 127.0.0.1 and a port each (the proxy's template gets its upstreams from
// the variables compose.yaml sets). Without podman, mmdebstrap or runc: skipped, or failed under CAIRN_TEST_STRICT.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { callTool, connectMcpClient } from '../../packages/server/src/testing/mcp-client.js';
import { baseImage, cairnImage, postgresImage, proxyImage, pruneKept, repoRoot } from './images.js';
import { missingTools, podman } from './podman.js';

const strict = ['1', 'true', 'yes'].includes((process.env.CAIRN_TEST_STRICT ?? '').toLowerCase());
const missing = missingTools();
const started = Date.now();
const log = (line: string) => console.log(`# [${Math.round((Date.now() - started) / 1000)} s] ${line}`);

if (missing && strict) {
  test('the container tools are installed', () => assert.fail(`${missing}; .ci/run installs them (ensure_container_tools)`));
}

const prefix = `cairn-ct-${process.pid}-`;
const email = 'ops@example.com';
const password = `pw-${randomBytes(12).toString('hex')}`;
const work = mkdtempSync(join(tmpdir(), 'cairn-ct-'));
const containers: string[] = [];
const volumes: string[] = [];
let image: { tag: string; built: boolean; deps?: string } = { tag: '', built: false };
let images = { base: '', postgres: '', proxy: '' };
let danglingBefore: string[] = [];

describe('the container image and the compose set-ups', { skip: missing ?? false }, () => {
  before(async () => {
    danglingBefore = await dangling();
    const base = await baseImage(log);
    const [postgres, proxy, cairn] = await Promise.all([postgresImage(base, log), proxyImage(base, log), cairnImage(base, log)]);
    images = { base, postgres, proxy };
    image = cairn;
    log(`images ready: ${image.tag} on ${base}`);
  });

  after(async () => {
    for (const name of containers.reverse()) await podman(['rm', '-f', '-t', '0', name], { allowFailure: true });
    for (const name of volumes) await podman(['volume', 'rm', '-f', name], { allowFailure: true });
    if (image.built && process.env.CAIRN_TEST_KEEP_IMAGE !== '1') await podman(['rmi', '-f', image.tag], { allowFailure: true });
    // The build stage's intermediate image this run left behind (never one that was there before).
    const left = (await dangling()).filter((id) => !danglingBefore.includes(id));
    for (const id of left) await podman(['rmi', id], { allowFailure: true });
    if (images.base) await pruneKept([images.base, images.postgres, images.proxy, ...(image.deps ? [image.deps] : [])].filter(Boolean));
    rmSync(work, { recursive: true, force: true });
    log('containers, volumes and the Cairn image removed (the base, deps-stage, PostgreSQL and proxy images are kept by the hash of their inputs)');
  });

  test('the image: a non-root user, /data on a volume, HOST=0.0.0.0, a health check, no compiler; portal, installer and plugin inside', async () => {
    const [info] = JSON.parse((await podman(['image', 'inspect', image.tag])).stdout);
    const config = info.Config;
    assert.equal(config.User, '10001:10001');
    assert.ok(config.Env.includes('HOST=0.0.0.0') && config.Env.includes('CAIRN_DATA_DIR=/data'), config.Env.join(' '));
    assert.ok('/data' in (config.Volumes ?? {}), 'VOLUME /data');
    assert.match(JSON.stringify(info.Healthcheck ?? config.Healthcheck), /healthz/);
    assert.equal(config.Entrypoint[0], '/usr/local/bin/tini');
    log(`image size: ${(info.Size / 1e6).toFixed(0)} MB (base ${((await imageSize(images.base)) / 1e6).toFixed(0)} MB)`);
    const files = [
      '/app/packages/portal/dist/index.html',
      '/app/packages/server/dist/install/cairn-mcp-installer.tgz',
      '/app/plugins/cairn/.claude-plugin/plugin.json',
      '/app/plugins/cairn/hooks/cairn-capture.js',
    ];
    const inside = await podman(['run', '--rm', '--network=none', '--entrypoint', 'sh', image.tag, '-c', `ls ${files.join(' ')} && ! command -v g++ && ! command -v make && id -u && du -sh /app`]);
    assert.match(inside.stdout, /^10001$/m);
    log(`inside: /app is ${inside.stdout.trim().split('\n').pop()}`);
  });

  describe('compose.yaml: PostgreSQL, two instances, the proxy', () => {
    const ports = { postgres: 0, one: 0, two: 0, proxy: 0 };
    const pgPassword = randomBytes(18).toString('hex');
    let envFile = '';
    let key = '';
    let viaProxy: Client;
    let entryId = '';
    const url = (port: number) => `http://127.0.0.1:${port}`;

    before(async () => {
      [ports.postgres, ports.one, ports.two, ports.proxy] = (await freePorts(4)) as [number, number, number, number];
      envFile = writeEnvFile('pg.env', { CAIRN_BASE_URL: url(ports.proxy), POSTGRES_PASSWORD: pgPassword, CAIRN_AUTH_SECRET: randomBytes(32).toString('hex') });
      await podman(['volume', 'create', `${prefix}postgres-data`]);
      volumes.push(`${prefix}postgres-data`);
      await run(
        'postgres',
        images.postgres,
        ['-e', 'POSTGRES_USER=cairn', '-e', 'POSTGRES_DB=cairn', '-e', `POSTGRES_PASSWORD=${pgPassword}`, '-v', `${prefix}postgres-data:/var/lib/postgresql/data`],
        ['-c', 'listen_addresses=127.0.0.1', '-c', `port=${ports.postgres}`],
      );
      await waitFor(
        'PostgreSQL accepts connections',
        async () => (await podman(['exec', `${prefix}postgres`, 'pg_isready', '-h', '127.0.0.1', '-p', String(ports.postgres), '-U', 'cairn', '-d', 'cairn'], { allowFailure: true })).code === 0,
      );
      // Started together: migrations and the shared secret are decided under the start-up advisory lock.
      await Promise.all([startInstance('cairn-1', ports.one), startInstance('cairn-2', ports.two)]);
      await run('proxy', images.proxy, [
        '-e',
        `CAIRN_PROXY_LISTEN=127.0.0.1:${ports.proxy}`,
        '-e',
        `CAIRN_UPSTREAM_1=127.0.0.1:${ports.one}`,
        '-e',
        `CAIRN_UPSTREAM_2=127.0.0.1:${ports.two}`,
        '-v',
        `${join(repoRoot, 'deploy/nginx.conf.template')}:/etc/nginx/templates/default.conf.template:ro`,
      ]);
    });

    after(async () => {
      await viaProxy?.close().catch(() => {});
    });

    async function startInstance(name: string, port: number) {
      const database = `postgres://cairn:${pgPassword}@127.0.0.1:${ports.postgres}/cairn`;
      // HOST=127.0.0.1 on the host's network (the image's 0.0.0.0 is for a container network of its own).
      await run(name, image.tag, ['--env-file', envFile, '-e', `DATABASE_URL=${database}`, '-e', 'CAIRN_TRUSTED_PROXIES=loopback', '-e', 'HOST=127.0.0.1', '-e', `PORT=${port}`]);
    }

    test('/readyz answers ready through the proxy, and the image health check passes on both instances', async () => {
      await waitFor('the proxy answers /readyz', async () => (await fetch(`${url(ports.proxy)}/readyz`).catch(() => undefined))?.status === 200);
      const ready = await fetch(`${url(ports.proxy)}/readyz`);
      assert.deepEqual(await ready.json(), { status: 'ready' });
      for (const name of ['cairn-1', 'cairn-2']) await waitFor(`${name} is healthy`, async () => (await podman(['healthcheck', 'run', `${prefix}${name}`], { allowFailure: true })).code === 0);
      const portal = await fetch(`${url(ports.proxy)}/`);
      assert.match(await portal.text(), /<div id="root">|<script/);
      const installer = await fetch(`${url(ports.proxy)}/install/cairn-mcp-installer.tgz`);
      assert.equal(installer.status, 200);
      assert.deepEqual([...new Uint8Array(await installer.arrayBuffer()).slice(0, 2)], [0x1f, 0x8b], 'a gzip file');
    });

    test('the first user with `cairn users create` inside a container, and a key with `cairn keys create`', async () => {
      const created = await podman(['exec', '-i', `${prefix}cairn-1`, 'cairn', 'users', 'create', '--email', email, '--name', 'Ops', '--password-stdin'], { input: `${password}\n` });
      assert.match(created.stdout + created.stderr, new RegExp(email));
      key = (await podman(['exec', `${prefix}cairn-2`, 'cairn', 'keys', 'create', '--user', email, '--name', 'container test'])).stdout.trim();
      assert.match(key, /^cairn_tkn_\S+$/);
    });

    test('MCP through the proxy; an entry saved through one instance is found through the other', async () => {
      viaProxy = await connectMcpClient(`${url(ports.proxy)}/mcp`, key);
      const packs = await callTool(viaProxy, 'list_datapacks');
      assert.ok(packs.datapacks.length >= 1, JSON.stringify(packs));
      const one = await connectMcpClient(`${url(ports.one)}/mcp`, key);
      const saved = await callTool(one, 'save_entry', { kind: 'standard', title: 'Container rollouts', content: 'Roll containers out one instance at a time behind the proxy.' });
      await one.close();
      assert.equal(saved.status, 'created');
      entryId = saved.entry.id;
      const two = await connectMcpClient(`${url(ports.two)}/mcp`, key);
      assert.equal((await callTool(two, 'get_entry', { id: entryId })).entry.title, 'Container rollouts');
      const found = await callTool(two, 'search', { query: 'roll containers out one instance at a time' });
      await two.close();
      assert.ok(
        found.results.some((r: { entry: { id: string } }) => r.entry.id === entryId),
        JSON.stringify(found),
      );
    });

    test('one instance stopped (within 10 s, exit 0): the other keeps answering through the proxy', async () => {
      await stopWithin10s('cairn-1');
      for (let i = 0; i < 6; i++) {
        try {
          assert.ok((await callTool(viaProxy, 'list_datapacks')).datapacks.length >= 1);
        } catch (error) {
          console.log(await logsOf(`${prefix}proxy`));
          throw error;
        }
      }
      assert.equal((await callTool(viaProxy, 'get_entry', { id: entryId })).entry.id, entryId);
      await podman(['start', `${prefix}cairn-1`]);
      await waitFor('cairn-1 is ready again', async () => (await fetch(`${url(ports.one)}/readyz`).catch(() => undefined))?.status === 200);
    });

    test('a restart of PostgreSQL is survived: both instances answer again, the entry is still there', async () => {
      await podman(['restart', '-t', '10', `${prefix}postgres`]);
      for (const port of [ports.one, ports.two])
        await waitFor(`the instance on ${port} is ready after the restart`, async () => (await fetch(`${url(port)}/readyz`).catch(() => undefined))?.status === 200);
      const client = await connectMcpClient(`${url(ports.two)}/mcp`, key);
      assert.equal((await callTool(client, 'get_entry', { id: entryId })).entry.title, 'Container rollouts');
      await client.close();
      await waitFor('the proxy answers an MCP call', async () => (await callTool(viaProxy, 'get_entry', { id: entryId }).catch(() => undefined))?.entry.id === entryId);
    });

    test('`cairn export` from the running set-up; `podman stop` ends each instance within 10 s', async () => {
      await podman(['exec', `${prefix}cairn-2`, 'cairn', 'export', '--out', '/tmp/export.jsonl']);
      await podman(['cp', `${prefix}cairn-2:/tmp/export.jsonl`, join(work, 'export.jsonl')]);
      assert.match(readFileSync(join(work, 'export.jsonl'), 'utf8'), new RegExp(entryId));
      // The database backup docs/deployment.md gives (over the socket, as `docker compose exec postgres` runs it).
      const dump = await podman(['exec', `${prefix}postgres`, 'pg_dump', '-p', String(ports.postgres), '-U', 'cairn', 'cairn']);
      assert.match(dump.stdout, /Container rollouts/);
      await stopWithin10s('cairn-2');
      await stopWithin10s('cairn-1');
    });
  });

  describe('compose.sqlite.yaml: one instance on SQLite, and the export imported into it', () => {
    let port = 0;
    let envFile = '';
    const volume = `${prefix}cairn-data`;

    before(async () => {
      [port] = (await freePorts(1)) as [number];
      envFile = writeEnvFile('sqlite.env', { CAIRN_BASE_URL: `http://127.0.0.1:${port}` });
      await podman(['volume', 'create', volume]);
      volumes.push(volume);
    });

    test('it starts and is healthy with no network at all: nothing is fetched at run time', async () => {
      await run('offline', image.tag, ['--network=none', '--env-file', envFile, '-v', `${volume}:/data`]);
      await waitFor('the offline instance is healthy', async () => (await podman(['healthcheck', 'run', `${prefix}offline`], { allowFailure: true })).code === 0);
      await podman(['exec', '-i', `${prefix}offline`, 'cairn', 'users', 'create', '--email', email, '--name', 'Ops', '--password-stdin'], { input: `${password}\n` });
      await stopWithin10s('offline');
    });

    test('the export from the PostgreSQL set-up imports into it, and MCP finds the entry', async () => {
      await run('sqlite', image.tag, ['--env-file', envFile, '-e', 'HOST=127.0.0.1', '-e', `PORT=${port}`, '-v', `${volume}:/data`]);
      await waitFor('the SQLite instance is ready', async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200);
      await podman(['cp', join(work, 'export.jsonl'), `${prefix}sqlite:/tmp/export.jsonl`]);
      const imported = await podman(['exec', `${prefix}sqlite`, 'cairn', 'import', '/tmp/export.jsonl']);
      assert.match(imported.stdout, /created/);
      const key = (await podman(['exec', `${prefix}sqlite`, 'cairn', 'keys', 'create', '--user', email, '--name', 'sqlite'])).stdout.trim();
      const client = await connectMcpClient(`http://127.0.0.1:${port}/mcp`, key);
      const found = await callTool(client, 'search', { query: 'roll containers out one instance at a time' });
      assert.ok(
        found.results.some((r: { entry: { title: string } }) => r.entry.title === 'Container rollouts'),
        JSON.stringify(found),
      );
      const saved = await callTool(client, 'save_entry', { kind: 'note', title: 'SQLite volume', content: 'This entry lives in the cairn-data volume.' });
      await client.close();
      // The consistent copy docs/deployment.md gives, taken while Cairn runs.
      await podman(['exec', `${prefix}sqlite`, 'node', '-e', "new (require('better-sqlite3'))('/data/cairn.db').backup('/data/backup.db').then(() => console.log('done'))"]);
      await podman(['cp', `${prefix}sqlite:/data/backup.db`, join(work, 'backup.db')]);
      const backup = readFileSync(join(work, 'backup.db'));
      assert.equal(backup.subarray(0, 15).toString(), 'SQLite format 3');
      assert.ok(backup.includes('This entry lives in the cairn-data volume.'), 'the backup holds the entry saved just before');
      await stopWithin10s('sqlite');
      await podman(['rm', `${prefix}sqlite`]);
      // A new container on the same volume: the data outlives the container.
      await run('sqlite', image.tag, ['--env-file', envFile, '-e', 'HOST=127.0.0.1', '-e', `PORT=${port}`, '-v', `${volume}:/data`]);
      await waitFor('the new SQLite container is ready', async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200);
      const again = await connectMcpClient(`http://127.0.0.1:${port}/mcp`, key);
      assert.equal((await callTool(again, 'get_entry', { id: saved.entry.id })).entry.title, 'SQLite volume');
      await again.close();
      await stopWithin10s('sqlite');
    });
  });
});

/** `podman run -d` on the host's network (loopback ports only), named and removed by this test. */
async function run(name: string, tag: string, options: string[], args: string[] = []) {
  const full = `${prefix}${name}`;
  const network = options.some((o) => o.startsWith('--network')) ? [] : ['--network=host'];
  containers.push(full);
  await podman(['run', '-d', '--name', full, ...network, ...options, tag, ...args]);
}

/** `podman stop` with a 10 s grace period: Cairn must exit by itself (0), not be killed when it runs out. */
async function stopWithin10s(name: string) {
  const start = Date.now();
  await podman(['stop', '-t', '10', `${prefix}${name}`]);
  const seconds = (Date.now() - start) / 1000;
  const code = (await podman(['inspect', '--format', '{{.State.ExitCode}}', `${prefix}${name}`])).stdout.trim();
  log(`podman stop ${name}: ${seconds.toFixed(1)} s, exit code ${code}`);
  assert.ok(seconds < 10, `stopped in ${seconds} s`);
  assert.equal(code, '0', await logsOf(`${prefix}${name}`));
}

async function dangling(): Promise<string[]> {
  return (await podman(['images', '-q', '--no-trunc', '--filter', 'dangling=true'])).stdout.split('\n').filter(Boolean);
}

async function imageSize(tag: string): Promise<number> {
  return JSON.parse((await podman(['image', 'inspect', tag])).stdout)[0].Size;
}

/** The env file as the docs have operators make it: deploy/cairn.env.example with the values filled in, mode 0600. */
function writeEnvFile(name: string, values: Record<string, string>): string {
  const lines = readFileSync(join(repoRoot, 'deploy/cairn.env.example'), 'utf8')
    .split('\n')
    .filter((line) => /^#?\s*[A-Z_]+=/.test(line))
    .map((line) => line.replace(/^#\s*/, '').split('=')[0]!)
    .filter((k) => k in values)
    .map((k) => `${k}=${values[k]}`);
  assert.deepEqual(lines.length, Object.keys(values).length, `deploy/cairn.env.example names ${Object.keys(values).join(', ')}`);
  const file = join(work, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  chmodSync(file, 0o600);
  return file;
}

async function waitFor(what: string, check: () => Promise<boolean>, seconds = 90) {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  const logs = await Promise.all(containers.map(async (c) => `--- ${c}\n${await logsOf(c)}`));
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

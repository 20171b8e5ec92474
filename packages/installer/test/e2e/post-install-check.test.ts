// The post-install check against a real Cairn, a closed port, a server that never answers, a non-Cairn and a bad certificate.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { configPath } from '@cairn/clients';
import { createApiKey, revokeApiKey } from '../../../server/src/domain/api-keys.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { startTenantCairn, type TestTenant } from '../../../server/src/testing/tenants.js';
import type { TestCairn } from '../../../server/src/testing/test-cairn.js';
import { checkConnection } from '../../src/check/check-connection.js';
import { inHome, type TempMachine } from '../../src/testing/temp-machine.js';

runFileOnEachBackend();

let cairn: TestCairn;
let tenant: TestTenant;
before(async () => ({ server: cairn, tenant } = await startTenantCairn()));
after(() => cairn.close());

async function serve(
  server: Server & { closeAllConnections?: () => void },
  protocol = 'http',
): Promise<{ base: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    });
  return { base: `${protocol}://127.0.0.1:${port}`, close };
}
const out = (m: TempMachine) => m.lines.join('\n');

describe('post-install check', { concurrency: true }, () => {
  for (const client of ['cursor', 'claude-desktop', 'codex', 'claude-code'] as const) {
    test(`${client}: connects with the written entry and prints who and how many datapacks`, () =>
      inHome(async (m) => {
        assert.equal(
          await m.install('--client', client, '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--yes'),
          0,
          out(m),
        );
        assert.ok(m.lines.includes('Connected as owner — 2 datapacks'), out(m));
      }));
  }

  test('a revoked key: exit 3, "bad or revoked key" with Cairn\'s own words, the config stays written', () =>
    inHome(async (m) => {
      const { key, record } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'soon revoked');
      await revokeApiKey(cairn.cairn.domain, record.id);
      assert.equal(await m.install('--client', 'kiro', '--url', cairn.baseUrl, '--api-key', key, '--yes'), 3);
      assert.match(
        out(m),
        /✘ Check failed, connecting as Kiro \(IDE and CLI\) will: the API key was refused — bad or revoked key\. Cairn says: The API key is not valid \(it may have been revoked/,
      );
      assert.match(out(m), /The entry stays written in .*mcp\.json/);
      assert.equal(
        JSON.parse(readFileSync(configPath('kiro', m), 'utf8')).mcpServers.cairn.headers.Authorization,
        `Bearer ${key}`,
      );
    }));

  test('server unreachable: a closed port says ECONNREFUSED; a name that does not resolve says so', () =>
    inHome(async (m) => {
      const probe = await serve(createServer());
      await probe.close();
      assert.equal(
        await m.install('--client', 'cursor', '--url', probe.base, '--api-key', tenant.owner.key, '--yes'),
        3,
      );
      assert.match(out(m), /server unreachable: nothing listens at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
      const dns = await checkConnection('https://cairn.invalid/mcp', {}, globalThis.fetch);
      assert.deepEqual([dns.ok, !dns.ok && dns.cause], [false, 'unreachable']);
    }));

  test('a server that never answers: unreachable after the timeout', async () => {
    const silent = await serve(createServer(() => {}));
    try {
      const result = await checkConnection(`${silent.base}/mcp`, {}, globalThis.fetch, 300);
      assert.equal(!result.ok && result.cause, 'timeout');
      assert.match(!result.ok ? result.message : '', /did not answer within 0\.3 s: server unreachable/);
    } finally {
      await silent.close();
    }
  });

  test('not a Cairn: 404 at /mcp, and an HTML page answering 200', () =>
    inHome(async (m) => {
      const web = await serve(
        createServer((req, res) => {
          if (req.url === '/app/mcp') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
          else res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        }),
      );
      try {
        assert.equal(
          await m.install('--client', 'cursor', '--url', web.base, '--api-key', tenant.owner.key, '--yes'),
          3,
        );
        assert.match(out(m), /nothing answers MCP at http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP 404\): this is not a Cairn/);
        const html = await checkConnection(`${web.base}/app/mcp`, {}, globalThis.fetch);
        assert.match(
          !html.ok ? html.message : '',
          /answered HTTP 200 \(text\/html\) but not with MCP JSON-RPC: this is not a Cairn/,
        );
      } finally {
        await web.close();
      }
    }));

  test('Cairn names the header: no "Bearer " (401) and no User-Agent (403)', async () => {
    const noBearer = await checkConnection(
      cairn.mcpUrl,
      { Authorization: tenant.owner.key, 'User-Agent': 'cairn-mcp-installer/1.0' },
      globalThis.fetch,
    );
    assert.equal(!noBearer.ok && noBearer.cause, 'bad-authorization');
    assert.match(!noBearer.ok ? noBearer.message : '', /"Bearer " prefix is required/);
    const noAgent = await checkConnection(
      cairn.mcpUrl,
      { Authorization: `Bearer ${tenant.owner.key}` },
      globalThis.fetch,
    );
    assert.equal(!noAgent.ok && noAgent.cause, 'user-agent');
    assert.match(
      !noAgent.ok ? noAgent.message : '',
      /missing or wrong User-Agent header\. Cairn says: .*User-Agent: cairn-mcp-installer\/1\.0/,
    );
  });

  test('TLS: a self-signed certificate is named by its error code', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-tls-'));
    try {
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'rsa:2048',
            '-nodes',
            '-subj',
            '/CN=127.0.0.1',
            '-days',
            '1',
            '-keyout',
            join(dir, 'k.pem'),
            '-out',
            join(dir, 'c.pem'),
          ],
          {
            stdio: 'ignore',
          },
        );
      } catch {
        t.skip('openssl is not installed here, so no certificate can be made');
        return;
      }
      const tls = await serve(
        createHttpsServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (_, res) =>
          res.end('{}'),
        ),
        'https',
      );
      try {
        const result = await checkConnection(`${tls.base}/mcp`, {}, globalThis.fetch);
        assert.equal(!result.ok && result.cause, 'tls');
        assert.match(
          !result.ok ? result.message : '',
          /TLS problem with 127\.0\.0\.1:\d+: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID)/,
        );
      } finally {
        await tls.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('OAuth entries are not checked (the client opens a browser); --dry-run and --no-check do not connect', () => {
    const calls: string[] = [];
    const recording: typeof fetch = async (input) => {
      calls.push(String(input));
      throw new Error('must not be called');
    };
    return inHome(
      async (m) => {
        assert.equal(await m.install('--client', 'cursor', '--url', cairn.baseUrl, '--oauth', '--yes'), 0);
        assert.match(out(m), /Not checked: with OAuth, Cursor opens a browser/);
        assert.equal(
          await m.install('--client', 'kiro', '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--dry-run'),
          0,
        );
        assert.equal(
          await m.install(
            '--client',
            'kiro',
            '--url',
            cairn.baseUrl,
            '--api-key',
            tenant.owner.key,
            '--yes',
            '--no-check',
          ),
          0,
        );
        assert.deepEqual(calls, []);
      },
      { fetch: recording },
    );
  });

  test('claude-desktop with a plain http:// address to another host: mcp-remote would refuse it, and the check says so', () =>
    inHome(async (m) => {
      assert.equal(
        await m.install(
          '--client',
          'claude-desktop',
          '--url',
          'http://cairn.lan:8080',
          '--api-key',
          tenant.owner.key,
          '--yes',
        ),
        3,
      );
      assert.match(out(m), /refuses plain http:\/\/ for any host but localhost/);
    }));
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { type CairnProcess, startCairnProcess } from '../../src/testing/cairn-process.js';
import { type BodyFraming, postChunked, type RawAnswer, sendBody } from '../../src/testing/send-body.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import { freePort, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const MiB = 1024 * 1024;
const TEN_MB = 10 * 1000 * 1000;
const FRAMINGS: BodyFraming[] = ['content-length', 'chunked'];

/** Every route a stranger can send a body to without any credential. */
const UNAUTHENTICATED_ROUTES = [
  '/api/auth/sign-in/email',
  '/api/auth/sign-up/email',
  '/api/v1/signup',
  '/api/auth/oauth2/register',
  '/api/auth/oauth2/token',
  '/api/v1/setup-codes/exchange',
  '/mcp',
  '/api/v1/capture',
];

function assertTooLarge(answer: RawAnswer, path: string, limit: RegExp): void {
  assert.equal(answer.status, 413, `${path}: ${answer.status} ${answer.body.slice(0, 200)}`);
  const body = JSON.parse(answer.body);
  if (path === '/mcp') {
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, limit);
  } else {
    assert.equal(body.error.code, 'payload_too_large');
    assert.match(body.error.message, limit);
    assert.match(body.error.message, new RegExp(path.replaceAll('/', '\\/')));
  }
}

const limitOf = (path: string) => (path === '/mcp' ? /4 MiB/ : path === '/api/v1/capture' ? /1 MiB/ : /64 KiB/);

describe('a stranger cannot make Cairn buffer a large body (cairn serve in a child process)', () => {
  let cairn: CairnProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-bodies-'));
  before(async () => {
    cairn = await startCairnProcess({ CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'warn' }, await freePort(), {
      preferBuild: true,
    });
  });
  after(async () => {
    await cairn?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const framing of FRAMINGS) {
    test(`10 MB to every unauthenticated route, ${framing}: 413 with the limit and what to do`, async () => {
      for (const path of UNAUTHENTICATED_ROUTES) {
        const started = Date.now();
        assertTooLarge(await sendBody(`${cairn.baseUrl}${path}`, TEN_MB, framing), path, limitOf(path));
        assert.ok(Date.now() - started < 5000, `${path} answered in ${Date.now() - started} ms`);
      }
    });
  }

  test('10 parallel 10 MB bodies keep the server under 300 MB resident', async () => {
    const baseline = cairn.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, cairn.rss());
    }, 10);
    try {
      for (const framing of FRAMINGS) {
        // The case first: ten sign-ins at once; then ten across every route.
        const signIns = Array.from({ length: 10 }, () =>
          sendBody(`${cairn.baseUrl}/api/auth/sign-in/email`, TEN_MB, framing),
        );
        for (const answer of await Promise.all(signIns)) assertTooLarge(answer, '/api/auth/sign-in/email', /64 KiB/);
        const mixed = Array.from({ length: 10 }, (_, i) => UNAUTHENTICATED_ROUTES[i % UNAUTHENTICATED_ROUTES.length]!);
        const answers = await Promise.all(mixed.map((path) => sendBody(`${cairn.baseUrl}${path}`, TEN_MB, framing)));
        for (const [i, answer] of answers.entries()) assertTooLarge(answer, mixed[i]!, limitOf(mixed[i]!));
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, cairn.rss());
    const mb = (n: number) => Math.round(n / MiB);
    console.log(
      `# resident memory of cairn serve (${cairn.runs}): ${mb(baseline)} MiB before, ${mb(peak)} MiB at most during 40 bodies of 10 MB (VmHWM ${mb(cairn.peakRss())} MiB)`,
    );
    assert.ok(peak < 300 * MiB, `peak RSS ${mb(peak)} MiB`);
    // Forty 10 MB bodies buffered would be 400 MB; what is left is the 4 MiB /mcp buffers and garbage not yet collected.
    assert.ok(peak - baseline < 80 * MiB, `RSS grew by ${mb(peak - baseline)} MiB`);
  });
});

describe('authenticated writes have their own limits, and bodies under them reach the handlers intact', () => {
  let server: TestCairn;
  let tenant: TestTenant;
  before(async () => ({ server, tenant } = await startTenantCairn()));
  after(() => server?.close());

  const keyHeaders = () => ({ authorization: `Bearer ${tenant.member.key}` });
  const mcpHeaders = () => ({
    ...keyHeaders(),
    'user-agent': INSTALLER_USER_AGENT,
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  });

  for (const framing of FRAMINGS) {
    test(`JSON API writes over 1 MiB are 413, ${framing}; under it they reach the domain`, async () => {
      assertTooLarge(
        await sendBody(`${server.baseUrl}/api/v1/entries`, 1.5 * MiB, framing, keyHeaders()),
        '/api/v1/entries',
        /1 MiB/,
      );
      assertTooLarge(
        await sendBody(`${server.baseUrl}/api/v1/datapacks`, 1.5 * MiB, framing, keyHeaders()),
        '/api/v1/datapacks',
        /1 MiB/,
      );
      // 900 KiB passes the edge and is refused by the domain for what it is: content too long for an entry.
      const under = await sendBody(`${server.baseUrl}/api/v1/entries`, 900 * 1024, framing, keyHeaders());
      assert.equal(under.status, 400, under.body.slice(0, 200));
    });

    test(`/mcp over 4 MiB with a valid key is 413 in JSON-RPC shape, ${framing}`, async () => {
      assertTooLarge(await sendBody(server.mcpUrl, 5 * MiB, framing, mcpHeaders()), '/mcp', /4 MiB/);
    });
  }

  test('chunked bodies under the limit are handed on whole: JSON API, better-auth sign-in and registration, MCP', async () => {
    const content = 'Chunked bodies reach the handler whole. '.repeat(300);
    const saved = await postChunked(
      `${server.baseUrl}/api/v1/entries`,
      JSON.stringify({ title: 'Chunked', content }),
      keyHeaders(),
    );
    assert.equal(saved.status, 201, saved.body);
    assert.equal(JSON.parse(saved.body).entry.content, content.trim());

    const origin = new URL(server.baseUrl).origin;
    const signIn = await postChunked(
      `${server.baseUrl}/api/auth/sign-in/email`,
      JSON.stringify({ email: tenant.member.email, password: 'correct horse battery' }),
      { origin },
    );
    assert.equal(signIn.status, 200, signIn.body);
    const wrong = await postChunked(
      `${server.baseUrl}/api/auth/sign-in/email`,
      JSON.stringify({ email: tenant.member.email, password: 'not the password' }),
      { origin },
    );
    assert.equal(wrong.status, 401, 'better-auth read the password from the re-wrapped body');

    const registered = await postChunked(
      `${server.baseUrl}/api/auth/oauth2/register`,
      JSON.stringify({
        client_name: 'Chunked client',
        redirect_uris: ['http://127.0.0.1:9999/callback'],
        token_endpoint_auth_method: 'none',
      }),
    );
    assert.equal(registered.status, 201, registered.body);
    assert.equal(JSON.parse(registered.body).client_name, 'Chunked client');

    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'chunked bodies handler' } },
    };
    const answer = await postChunked(server.mcpUrl, JSON.stringify(call), mcpHeaders(), 10);
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, /"id":7/);
    assert.match(answer.body, /Chunked bodies reach the handler whole/);
  });
});

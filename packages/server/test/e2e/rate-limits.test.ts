import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/domain/api-keys.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { pkce } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';
import { assertTooMany, PASSWORD, randomAddress, register, signInAttempt } from './rate-limits.fixture.js';

runFileOnEachBackend();

// The runner runs this file once per backend (CAIRN_TEST_BACKEND); the two instances sharing limits are in rate-limits-two-instances.test.ts.
const backend = process.env.CAIRN_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/** The answer to `send` once it is not 503 "busy", waiting the Retry-After each busy answer gives (at most five tries). */
async function notBusy(send: () => Promise<Response>): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send();
    if (answer.status !== 503 || attempt === 5) return answer;
    const wait = Number(answer.headers.get('retry-after'));
    assert.ok(wait >= 1, 'a busy answer says when to come back');
    await answer.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 2) * 1000));
  }
}

function listTools(mcpUrl: string, key: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'user-agent': 'cairn-mcp-installer/1.0',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

const start = (env: Record<string, string> = {}): Promise<TestCairn> => startTestCairn({ env });

describe(`rate limits (${backend})`, () => {
  describe('the default configuration', () => {
    let server: TestCairn;
    let tenant: TestTenant;
    before(async () => {
      server = await start();
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('20 wrong passwords → 429 after the 10th, a rotating X-Forwarded-For resets nothing, and the right password is refused during the block', async () => {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 20; i++) {
        last = await signInAttempt(server.baseUrl, tenant.member.email, `wrong password ${i}`, randomAddress());
        statuses.push(last.status);
      }
      assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(10).fill(429)]);
      await assertTooMany(last!, /failed sign-ins to this account from your network/);
      await assertTooMany(
        await signInAttempt(server.baseUrl, tenant.member.email, PASSWORD, randomAddress()),
        /whatever the password/,
      );
      // Other accounts are not locked out by someone else's failures.
      assert.equal((await signInAttempt(server.baseUrl, tenant.owner.email, PASSWORD)).status, 200);
    });

    test('300 registrations in a burst: only the first 20 from one address are accepted', async () => {
      // A loaded machine may answer part of the burst 503 "busy": a client sends those again after Retry-After.
      const answers = await Promise.all(
        Array.from({ length: 60 }, () => notBusy(() => register(server.baseUrl, randomAddress()))),
      );
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 201).length, 20, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 40, statuses.join(','));
      const refused = answers.find((a) => a.status === 429)!;
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      const body = (await refused.json()) as { error: string; error_description: string };
      assert.equal(body.error, 'temporarily_unavailable');
      assert.match(body.error_description, /Too many OAuth client registrations .* Try again in/);
    });
  });

  describe('sign-in with small limits', () => {
    let server: TestCairn;
    let tenant: TestTenant;
    before(async () => {
      // The account and address budgets are set so they never refuse before the per-account-and-address one
      // in the parallel test (8 attempts), so its outcome is exact.
      server = await start({
        CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS: '3',
        CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT: '8',
        CAIRN_SIGN_IN_FAILURES_PER_ADDRESS: '11',
      });
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('successful sign-ins never count, and never wipe the failures before them', async () => {
      for (let i = 0; i < 6; i++)
        assert.equal((await signInAttempt(server.baseUrl, tenant.member.email, PASSWORD)).status, 200, `success ${i}`);
      assert.equal((await signInAttempt(server.baseUrl, tenant.member.email, 'wrong 1')).status, 401);
      assert.equal((await signInAttempt(server.baseUrl, tenant.member.email, 'wrong 2')).status, 401);
      assert.equal((await signInAttempt(server.baseUrl, tenant.member.email, PASSWORD)).status, 200);
      assert.equal((await signInAttempt(server.baseUrl, tenant.member.email, 'wrong 3')).status, 401);
      await assertTooMany(
        await signInAttempt(server.baseUrl, tenant.member.email, PASSWORD),
        /this account from your network/,
      );
    });

    test('8 wrong passwords in parallel: exactly the allowed number is tried, the rest are refused', async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => signInAttempt(server.baseUrl, tenant.owner.email, `parallel ${i}`)),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [401, 401, 401, 429, 429, 429, 429, 429]);
    });

    test('the account is recognised however the e-mail is cased, and in a form-encoded body', async () => {
      const email = tenant.outsider.email;
      assert.equal((await signInAttempt(server.baseUrl, email.toUpperCase(), 'wrong a')).status, 401);
      const form = await fetch(`${server.baseUrl}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.baseUrl },
        body: new URLSearchParams({ email, password: 'wrong b' }),
      });
      assert.equal(form.status, 401, await form.clone().text());
      assert.equal((await signInAttempt(server.baseUrl, email, 'wrong c')).status, 401);
      await assertTooMany(
        await signInAttempt(server.baseUrl, email.toUpperCase(), PASSWORD),
        /this account from your network/,
      );
    });

    test('failures on any accounts, existing or not, count against the address (password spraying)', async () => {
      // Failures so far from this address: 3 (member) + 3 (owner) + 3 (outsider) = 9 of 11.
      assert.equal((await signInAttempt(server.baseUrl, 'nobody-1@example.test', 'spray')).status, 401);
      assert.equal((await signInAttempt(server.baseUrl, 'nobody-2@example.test', 'spray')).status, 401);
      await assertTooMany(
        await signInAttempt(server.baseUrl, 'nobody-3@example.test', 'spray'),
        /Too many failed sign-ins from your network/,
      );
    });
  });

  describe('behind a trusted proxy (CAIRN_TRUSTED_PROXIES=127.0.0.1)', () => {
    let server: TestCairn;
    let tenant: TestTenant;
    before(async () => {
      server = await start({
        CAIRN_TRUSTED_PROXIES: '127.0.0.1',
        CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS: '3',
        CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT: '5',
        CAIRN_OAUTH_REGISTRATIONS_PER_ADDRESS: '2',
      });
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('each forwarded address has its own budget, while the per-account cap holds across them', async () => {
      const a = '198.51.100.7';
      const b = '2001:db8:1:2::7';
      const statusesFromA = [];
      for (let i = 0; i < 4; i++)
        statusesFromA.push((await signInAttempt(server.baseUrl, tenant.member.email, `wrong a${i}`, a)).status);
      assert.deepEqual(statusesFromA, [401, 401, 401, 429]);
      // Another address starts afresh for this account and address...
      assert.equal((await signInAttempt(server.baseUrl, tenant.member.email, 'wrong b0', b)).status, 401);
      // ...and the same /64 is the same address, whatever its last 64 bits.
      assert.equal(
        (await signInAttempt(server.baseUrl, tenant.member.email, 'wrong b1', '2001:db8:1:2:ffff::1')).status,
        401,
      );
      // Five failures in all: the account is paused from every address, with the right password too.
      await assertTooMany(
        await signInAttempt(server.baseUrl, tenant.member.email, PASSWORD, '192.0.2.55'),
        /failed sign-ins to this account\./,
      );
    });

    test('only the entry the proxy added counts: what the client wrote to the left of it changes nothing', async () => {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (await signInAttempt(server.baseUrl, tenant.owner.email, `wrong ${i}`, `${randomAddress()}, 192.0.2.200`))
            .status,
        );
      assert.deepEqual(statuses, [401, 401, 401, 429]);
    });

    test('registrations are counted per forwarded address', async () => {
      const statuses = [];
      for (const from of ['192.0.2.1', '192.0.2.1', '192.0.2.1', '192.0.2.2'])
        statuses.push((await register(server.baseUrl, from)).status);
      assert.deepEqual(statuses, [201, 201, 429, 201]);
    });
  });

  describe('per-credential request limits on /mcp and /api/v1', () => {
    let server: TestCairn;
    let tenant: TestTenant;
    before(async () => {
      server = await start({ CAIRN_REQUESTS_PER_MINUTE: '5' });
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('past the limit a key gets a JSON-RPC 429 with Retry-After on /mcp and a JSON 429 on /api/v1; other keys are unaffected', async () => {
      for (let i = 0; i < 4; i++)
        assert.equal((await listTools(server.mcpUrl, tenant.member.key)).status, 200, `request ${i}`);
      const api = await fetch(`${server.baseUrl}/api/v1/datapacks`, {
        headers: { authorization: `Bearer ${tenant.member.key}` },
      });
      assert.equal(api.status, 200, 'the fifth request, on the JSON API, shares the budget');
      const refused = await listTools(server.mcpUrl, tenant.member.key);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      const body = (await refused.json()) as {
        jsonrpc: string;
        id: null;
        error: { code: number; message: string; data: { retryAfterSeconds: number } };
      };
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.id, null);
      assert.equal(body.error.code, -32029);
      assert.match(body.error.message, /Too many requests for this API key \(at most 5 a minute\)\. Try again in/);
      assert.equal(body.error.data.retryAfterSeconds, Number(refused.headers.get('retry-after')));
      await assertTooMany(
        await fetch(`${server.baseUrl}/api/v1/datapacks`, {
          headers: { authorization: `Bearer ${tenant.member.key}` },
        }),
        /this API key/,
      );
      assert.equal(
        (await listTools(server.mcpUrl, tenant.owner.key)).status,
        200,
        'another key of the same organization',
      );
      const { key: second } = await createApiKey(server.cairn.domain, tenant.member.id, 'second key');
      assert.equal((await listTools(server.mcpUrl, second)).status, 200, 'another key of the same user');
    });
  });

  describe('guessable codes: failed setup-code exchanges and invite sign-ups per address', () => {
    let server: TestCairn;
    before(async () => {
      server = await start({ CAIRN_CODE_FAILURES_PER_ADDRESS: '3' });
      await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('guesses are refused with 429 once the address has used its failures, on both routes', async () => {
      const exchange = (code: string) =>
        fetch(`${server.baseUrl}/api/v1/setup-codes/exchange`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': randomAddress() },
          body: JSON.stringify({ code, client: 'cursor', host: 'h' }),
        });
      for (let i = 0; i < 3; i++)
        assert.equal((await exchange(`cairn_stp_${randomBytes(18).toString('base64url')}`)).status, 401);
      await assertTooMany(
        await exchange(`cairn_stp_${randomBytes(18).toString('base64url')}`),
        /failed setup-code exchanges/,
      );
      const signup = await fetch(`${server.baseUrl}/api/v1/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.baseUrl },
        body: JSON.stringify({
          email: 'guess@example.test',
          password: PASSWORD,
          invite: randomBytes(16).toString('hex'),
        }),
      });
      await assertTooMany(signup, /failed sign-ups/);
    });
  });

  describe('Client ID Metadata Document fetches per address', () => {
    let server: TestCairn;
    let docs: Server;
    let fetched: string[];
    before(async () => {
      fetched = [];
      docs = createServer((req, res) => {
        fetched.push(req.url!);
        const clientId = `http://127.0.0.1:${(docs.address() as AddressInfo).port}${req.url}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            client_id: clientId,
            client_name: 'CIMD',
            redirect_uris: ['http://127.0.0.1:53682/cb'],
            token_endpoint_auth_method: 'none',
          }),
        );
      });
      await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
      server = await start({
        CAIRN_OAUTH_CIMD_ALLOW_LOOPBACK_FOR_TESTS: 'true',
        CAIRN_OAUTH_CIMD_FETCHES_PER_ADDRESS: '2',
        CAIRN_TRUSTED_PROXIES: '127.0.0.1',
      });
    });
    after(async () => {
      await server?.close();
      await new Promise<void>((r) => docs.close(() => r()));
    });

    /** An authorization request naming the document at `path` as its client, optionally forwarded for `forwardedFor`. */
    const authorize = (path: string, forwardedFor?: string) => {
      const u = new URL(`${server.baseUrl}/api/auth/oauth2/authorize`);
      const clientId = `http://127.0.0.1:${(docs.address() as AddressInfo).port}${path}`;
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:53682/cb',
        scope: 'mcp',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }))
        u.searchParams.set(k, v);
      return fetch(u, { redirect: 'manual', headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
    };
    const refusalOf = async (answer: Response) =>
      decodeURIComponent(`${answer.headers.get('location') ?? ''} ${await answer.text()}`).replace(/\+/g, ' ');

    test('each address may make Cairn fetch only so many documents; then nothing is fetched and the answer says to wait', async () => {
      for (const path of ['/a.json', '/b.json', '/c.json', '/d.json']) await authorize(path);
      assert.deepEqual(fetched, ['/a.json', '/b.json']);
      assert.match(
        await refusalOf(await authorize('/e.json')),
        /Too many Client ID Metadata Document fetches from your network; try again in \d+ seconds/,
      );
      assert.deepEqual(fetched, ['/a.json', '/b.json']);
    });

    test('behind a trusted proxy each forwarded address has its own budget of fetches', async () => {
      const earlier = fetched.length;
      for (const path of ['/f.json', '/g.json']) await authorize(path, '192.0.2.10');
      assert.match(
        await refusalOf(await authorize('/h.json', '192.0.2.10')),
        /Too many Client ID Metadata Document fetches from your network/,
      );
      await authorize('/i.json', '192.0.2.11');
      assert.deepEqual(fetched.slice(earlier), ['/f.json', '/g.json', '/i.json']);
    });
  });
});

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { browserRequest, signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

// Client ID Metadata Documents: the client_id is the URL of a document this test serves on 127.0.0.1.
// Only the test-only setting lets the SSRF guard reach it; by default it is refused.
const REDIRECT = 'http://127.0.0.1:53682/oauth/callback';

let docs: Server;
let clientId: string;
let server: TestCairn;
let strict: TestCairn;
let tenant: TestTenant;

const b64url = (buf: Buffer) => buf.toString('base64url');

function authorizeUrl(base: string, challenge: string): string {
  const u = new URL(`${base}/api/auth/oauth2/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    state: 'st-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }))
    u.searchParams.set(k, v);
  return u.toString();
}

describe('OAuth with a Client ID Metadata Document', () => {
  before(async () => {
    docs = createServer((req, res) => {
      if (req.url === '/client.json')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            client_id: clientId,
            client_name: 'CIMD test client',
            redirect_uris: [REDIRECT],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          }),
        );
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    clientId = `http://127.0.0.1:${(docs.address() as AddressInfo).port}/client.json`;
    server = await startTestCairn({ env: { CAIRN_OAUTH_CIMD_ALLOW_LOOPBACK_FOR_TESTS: 'true' } });
    strict = await startTestCairn();
    tenant = await createTenant(server.cairn);
  });
  after(async () => {
    await server?.close();
    await strict?.close();
    await new Promise<void>((r) => docs.close(() => r()));
  });

  test('the authorization server metadata advertises CIMD', async () => {
    const answer = await fetch(`${strict.baseUrl}/.well-known/oauth-authorization-server/api/auth`);
    assert.equal(((await answer.json()) as Record<string, unknown>).client_id_metadata_document_supported, true);
  });

  test('client_id = document URL → authorize → consent → token → /mcp', async () => {
    const cookie = await signIn(server.baseUrl, tenant.member.email);
    const verifier = b64url(randomBytes(32));
    const challenge = b64url(createHash('sha256').update(verifier).digest());
    const first = await browserRequest(authorizeUrl(server.baseUrl, challenge), cookie);
    assert.ok([302, 303].includes(first.status) && first.location, `authorize answered ${first.status}: ${first.body}`);
    let location = first.location;
    if (location.pathname === '/oauth/consent') {
      const consent = await fetch(`${server.baseUrl}/api/auth/oauth2/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: server.baseUrl },
        body: JSON.stringify({ accept: true, oauth_query: location.search.slice(1) }),
      });
      assert.equal(consent.status, 200, await consent.clone().text());
      const body = (await consent.json()) as { url?: string; redirect_uri?: string };
      location = new URL((body.url ?? body.redirect_uri)!);
    }
    const code = location.searchParams.get('code');
    assert.ok(code, `no code in ${location}`);
    const tokens = await fetch(`${server.baseUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    assert.equal(tokens.status, 200, await tokens.clone().text());
    const { access_token } = (await tokens.json()) as { access_token: string };
    const mcp = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(mcp.status, 200, await mcp.clone().text());
  });

  test('with the default policy the same loopback document is refused, with a clear error', async () => {
    const cookie = await signIn(strict.baseUrl, (await createTenant(strict.cairn)).member.email);
    const answer = await browserRequest(authorizeUrl(strict.baseUrl, b64url(randomBytes(32))), cookie);
    const text = `${answer.status} ${answer.location ?? ''} ${answer.body}`;
    assert.ok(!answer.location?.searchParams.get('code') && !answer.location?.pathname.includes('consent'), text);
    assert.match(decodeURIComponent(text), /Client ID Metadata Document refused: .*(only https|loopback)/, text);
  });
});

describe('CIMD with loopback callbacks refused by the operator', () => {
  test('a document with a loopback redirect is refused with the API-key message', async () => {
    const docServer = createServer(
      (_req, res) =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            client_id: id,
            client_name: 'x',
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: 'none',
          }),
        ),
    );
    await new Promise<void>((r) => docServer.listen(0, '127.0.0.1', r));
    const id = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}/client.json`;
    const cairn = await startTestCairn({
      env: { CAIRN_OAUTH_CIMD_ALLOW_LOOPBACK_FOR_TESTS: 'true', CAIRN_OAUTH_ALLOW_LOOPBACK: 'false' },
    });
    try {
      clientId = id;
      const cookie = await signIn(cairn.baseUrl, (await createTenant(cairn.cairn)).member.email);
      const answer = await browserRequest(authorizeUrl(cairn.baseUrl, b64url(randomBytes(32))), cookie);
      assert.match(
        decodeURIComponent(`${answer.location ?? ''} ${answer.body}`).replace(/\+/g, ' '),
        /Use an API key instead/,
      );
    } finally {
      await cairn.close();
      await new Promise<void>((r) => docServer.close(() => r()));
    }
  });
});

describe('CIMD documents meet the limits of a registration', () => {
  test('a 50,000-character client_name is refused with the limit named, and no client is stored', async () => {
    const name = 'N'.repeat(50_000);
    const docServer = createServer(
      (_req, res) =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            client_id: id,
            client_name: name,
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: 'none',
          }),
        ),
    );
    await new Promise<void>((r) => docServer.listen(0, '127.0.0.1', r));
    const id = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}/client.json`;
    const cairn = await startTestCairn({ env: { CAIRN_OAUTH_CIMD_ALLOW_LOOPBACK_FOR_TESTS: 'true' } });
    try {
      clientId = id;
      const cookie = await signIn(cairn.baseUrl, (await createTenant(cairn.cairn)).member.email);
      const answer = await browserRequest(authorizeUrl(cairn.baseUrl, b64url(randomBytes(32))), cookie);
      const text = decodeURIComponent(`${answer.status} ${answer.location ?? ''} ${answer.body}`).replace(/\+/g, ' ');
      assert.ok(
        !answer.location?.searchParams.get('code') && !answer.location?.pathname.includes('consent'),
        text.slice(0, 500),
      );
      assert.match(
        text,
        /Client ID Metadata Document refused: client_name must be at most 200 characters/,
        text.slice(0, 500),
      );
      assert.ok(!text.includes(name), 'the name is not echoed back');
      const ctx = await cairn.cairn.auth.$context;
      assert.equal(
        await ctx.adapter.findOne({ model: 'oauthClient', where: [{ field: 'clientId', value: id }] }),
        null,
      );
    } finally {
      await cairn.close();
      await new Promise<void>((r) => docServer.close(() => r()));
    }
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { OAuthTokenVerifier } from '../../src/auth/oauth/access-tokens.js';
import { LOOPBACK_REFUSED_MESSAGE } from '../../src/auth/oauth/loopback.js';
import { hashOAuthToken, oauthProviderOptions } from '../../src/auth/oauth/oauth-options.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { browserRequest, pkce, signIn } from '../../src/testing/oauth-flow.js';
import { postgresTestUrl } from '../../src/testing/postgres.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const REDIRECT = 'http://127.0.0.1:53682/oauth/callback';

let server: TestCairn;
let tenant: TestTenant;

const pg = postgresTestUrl();
if ('skip' in pg) console.log(`# OAuth on PostgreSQL skipped: ${pg.skip}`);

const url = (path: string) => `${server.baseUrl}${path}`;
const b64url = (buf: Buffer) => buf.toString('base64url');

async function register(body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(url('/api/auth/oauth2/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test MCP client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...body,
    }),
  });
}

async function registerClient(): Promise<string> {
  const answer = await register();
  assert.equal(answer.status, 201, await answer.clone().text());
  return ((await answer.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, params: Record<string, string | undefined>): string {
  const u = new URL(url('/api/auth/oauth2/authorize'));
  const all: Record<string, string | undefined> = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'mcp offline_access', state: 'st-123', ...params };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** authorize → consent page → consent accepted → the client's redirect with code, state and iss. */
async function authorize(cookie: string, clientId: string, params: Record<string, string | undefined>): Promise<URL> {
  const first = await browserRequest(authorizeUrl(clientId, params), cookie);
  assert.ok([302, 303].includes(first.status) && first.location, `authorize answered ${first.status}: ${first.body}`);
  let location = first.location;
  if (location.pathname === '/oauth/consent') {
    const consent = await fetch(url('/api/auth/oauth2/consent'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: server.baseUrl },
      body: JSON.stringify({ accept: true, oauth_query: location.search.slice(1) }),
    });
    assert.equal(consent.status, 200, await consent.clone().text());
    const body = (await consent.json()) as { url?: string; redirect_uri?: string };
    location = new URL((body.url ?? body.redirect_uri)!);
  }
  return location;
}

async function token(form: Record<string, string>): Promise<Response> {
  return fetch(url('/api/auth/oauth2/token'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
}

/** The whole code flow for the tenant's member; returns the token response. */
async function codeFlow(params: Record<string, string> = {}): Promise<{ clientId: string; access_token: string; refresh_token?: string; code: string; verifier: string }> {
  const clientId = await registerClient();
  const cookie = await signIn(server.baseUrl, tenant.member.email);
  const { verifier, challenge } = pkce();
  const redirect = await authorize(cookie, clientId, { code_challenge: challenge, code_challenge_method: 'S256', ...params });
  const code = redirect.searchParams.get('code')!;
  assert.ok(code, `no code in ${redirect}`);
  const answer = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
  assert.equal(answer.status, 200, await answer.clone().text());
  return { clientId, code, verifier, ...((await answer.json()) as { access_token: string; refresh_token?: string }) };
}

async function postMcp(headers: Record<string, string>, path = '/mcp'): Promise<Response> {
  return fetch(url(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`OAuth 2.1 for MCP clients (${backend})`, { skip: backend === 'postgres' && 'skip' in pg ? pg.skip : undefined }, () => {
    before(async () => {
      server = await startTestCairn(backend === 'postgres' && 'url' in pg ? { postgresServerUrl: pg.url } : {});
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    describe('OAuth discovery', () => {
      test('protected resource metadata (RFC 9728) at the path and root forms names the issuer', async () => {
        for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
          const answer = await fetch(url(path));
          assert.equal(answer.status, 200, path);
          const doc = (await answer.json()) as Record<string, unknown>;
          assert.equal(doc.resource, server.mcpUrl);
          assert.deepEqual(doc.authorization_servers, [`${server.baseUrl}/api/auth`]);
          assert.deepEqual(doc.scopes_supported, ['mcp', 'offline_access']);
          assert.deepEqual(doc.bearer_methods_supported, ['header']);
        }
      });

      test('authorization server metadata (RFC 8414) is served where its issuer says, with S256 only', async () => {
        const issuer = `${server.baseUrl}/api/auth`;
        // RFC 8414 §3.1: the issuer's path is inserted after /.well-known/oauth-authorization-server.
        const answer = await fetch(url('/.well-known/oauth-authorization-server/api/auth'));
        assert.equal(answer.status, 200);
        const doc = (await answer.json()) as Record<string, unknown>;
        assert.equal(doc.issuer, issuer);
        assert.equal(doc.registration_endpoint, `${issuer}/oauth2/register`);
        assert.equal(doc.authorization_endpoint, `${issuer}/oauth2/authorize`);
        assert.equal(doc.token_endpoint, `${issuer}/oauth2/token`);
        assert.equal(doc.revocation_endpoint, `${issuer}/oauth2/revoke`);
        assert.deepEqual(doc.code_challenge_methods_supported, ['S256']);
        assert.equal(doc.authorization_response_iss_parameter_supported, true);
      });

      test('the 401 from /mcp points at the resource metadata and names the scope', async () => {
        const answer = await postMcp({});
        assert.equal(answer.status, 401);
        const challenge = answer.headers.get('www-authenticate')!;
        assert.match(challenge, new RegExp(`resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"`));
        assert.match(challenge, /scope="mcp offline_access"/);
      });
    });

    describe('dynamic client registration', () => {
      test('a public client without application_type may use a loopback callback on any port', async () => {
        const answer = await register({ redirect_uris: ['http://localhost:4711/oauth/callback', 'http://127.0.0.1/cb'] });
        assert.equal(answer.status, 201, await answer.clone().text());
        const body = (await answer.json()) as Record<string, unknown>;
        assert.equal(body.token_endpoint_auth_method, 'none');
        assert.equal(body.client_secret, undefined);
      });

      test('with CAIRN_OAUTH_ALLOW_LOOPBACK=false a loopback callback is refused and the user is told to use an API key', async () => {
        const strict = await startTestCairn({ env: { CAIRN_OAUTH_ALLOW_LOOPBACK: 'false' } });
        try {
          const answer = await fetch(`${strict.baseUrl}/api/auth/oauth2/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_name: 'cli', redirect_uris: ['http://localhost:4711/oauth/callback'], token_endpoint_auth_method: 'none' }),
          });
          assert.equal(answer.status, 400);
          const body = (await answer.json()) as { error: string; error_description: string };
          assert.equal(body.error, 'invalid_redirect_uri');
          assert.equal(body.error_description, LOOPBACK_REFUSED_MESSAGE);
          assert.match(body.error_description, /API key/);
          const https = await fetch(`${strict.baseUrl}/api/auth/oauth2/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_name: 'web', redirect_uris: ['https://app.example.com/callback'], token_endpoint_auth_method: 'none' }),
          });
          assert.equal(https.status, 201, await https.clone().text());
        } finally {
          await strict.close();
        }
      });
    });

    describe('known client schemes (CAIRN_OAUTH_CLIENT_SCHEMES)', () => {
      const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback';

      test('a cursor:// callback registers by default, and the whole code flow completes on it', async () => {
        const answer = await register({ client_name: 'Cursor', redirect_uris: [CURSOR] });
        assert.equal(answer.status, 201, await answer.clone().text());
        const registered = (await answer.json()) as { client_id: string; redirect_uris: string[] };
        assert.deepEqual(registered.redirect_uris, [CURSOR]);
        const clientId = registered.client_id;
        const cookie = await signIn(server.baseUrl, tenant.member.email);
        const { verifier, challenge } = pkce();
        const redirect = await authorize(cookie, clientId, { redirect_uri: CURSOR, code_challenge: challenge, code_challenge_method: 'S256' });
        assert.equal(`${redirect.protocol}//${redirect.host}${redirect.pathname}`, CURSOR, String(redirect));
        assert.equal(redirect.searchParams.get('state'), 'st-123');
        const code = redirect.searchParams.get('code')!;
        assert.ok(code, String(redirect));
        const exchanged = await token({ grant_type: 'authorization_code', code, redirect_uri: CURSOR, client_id: clientId, code_verifier: verifier });
        assert.equal(exchanged.status, 200, await exchanged.clone().text());
        const { access_token } = (await exchanged.json()) as { access_token: string };
        assert.equal((await postMcp({ authorization: `Bearer ${access_token}` })).status, 200);
        // Still exact: a look-alike cursor:// callback is refused.
        const other = await browserRequest(authorizeUrl(clientId, { redirect_uri: 'cursor://anysphere.cursor-mcp/oauth/callback2', code_challenge: challenge, code_challenge_method: 'S256' }), cookie);
        assert.equal(other.location?.origin, server.baseUrl);
        assert.equal(other.location?.searchParams.get('code'), null);
      });

      test('vscode:// and vscode-insiders:// register alongside loopback; unlisted custom schemes are refused', async () => {
        const both = await register({ redirect_uris: ['vscode://vscode.github-authentication/did-authenticate', 'vscode-insiders://vscode.github-authentication/did-authenticate', REDIRECT] });
        assert.equal(both.status, 201, await both.clone().text());
        assert.deepEqual(((await both.json()) as { redirect_uris: string[] }).redirect_uris, [
          'vscode://vscode.github-authentication/did-authenticate',
          'vscode-insiders://vscode.github-authentication/did-authenticate',
          REDIRECT,
        ]);
        for (const uri of ['evilapp://callback', 'cursor://anysphere.cursor-mcp/cb#frag', 'cursor://user:pw@anysphere.cursor-mcp/cb']) {
          const refused = await register({ redirect_uris: [uri] });
          assert.equal(refused.status, 400, uri);
          assert.equal(((await refused.json()) as { error: string }).error, 'invalid_redirect_uri', uri);
        }
      });

      test('with CAIRN_OAUTH_CLIENT_SCHEMES empty, cursor:// is refused', async () => {
        const strict = await startTestCairn({ env: { CAIRN_OAUTH_CLIENT_SCHEMES: '' } });
        try {
          const answer = await fetch(`${strict.baseUrl}/api/auth/oauth2/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_name: 'Cursor', redirect_uris: [CURSOR], token_endpoint_auth_method: 'none' }),
          });
          assert.equal(answer.status, 400, await answer.clone().text());
        } finally {
          await strict.close();
        }
      });
    });

    describe('authorization code flow with PKCE', () => {
      test('plain or missing code_challenge is refused at the client redirect, with state and iss', async () => {
        const clientId = await registerClient();
        const cookie = await signIn(server.baseUrl, tenant.member.email);
        for (const params of [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }]) {
          const answer = await browserRequest(authorizeUrl(clientId, params), cookie);
          const location = answer.location!;
          assert.ok(location, `authorize answered ${answer.status}: ${answer.body}`);
          assert.equal(`${location.origin}${location.pathname}`, REDIRECT, JSON.stringify(params));
          assert.equal(location.searchParams.get('error'), 'invalid_request');
          assert.equal(location.searchParams.get('code'), null);
          assert.equal(location.searchParams.get('state'), 'st-123');
          assert.equal(location.searchParams.get('iss'), `${server.baseUrl}/api/auth`);
        }
      });

      test('the code flow yields a token bound to /mcp that lists datapacks through the MCP SDK client', async () => {
        const flow = await codeFlow();
        // The stored token's audience is Cairn's MCP URL even though the client never sent `resource`.
        const row = await server.cairn.store.db
          .selectFrom('oauthAccessToken' as any)
          .selectAll()
          .where('token' as any, '=', hashOAuthToken(flow.access_token))
          .executeTakeFirst();
        assert.ok(row, 'access token stored');
        assert.match(String((row as Record<string, unknown>).resources), /\/mcp/);

        const client = new Client({ name: 'oauth-test', version: '1.0.0' });
        // No User-Agent rule for OAuth: the SDK's own User-Agent is fine.
        await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${flow.access_token}` } } }));
        try {
          const { datapacks } = await callTool<{ datapacks: { name: string }[] }>(client, 'list_datapacks');
          assert.ok(Array.isArray(datapacks) && datapacks.length > 0, JSON.stringify(datapacks));
        } finally {
          await client.close();
        }
      });

      test('token responses carry Cache-Control: no-store, success and failure alike', async () => {
        const clientId = await registerClient();
        const cookie = await signIn(server.baseUrl, tenant.member.email);
        const { verifier, challenge } = pkce();
        const code = (await authorize(cookie, clientId, { code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
        const ok = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('cache-control'), 'no-store');
        const bad = await token({ grant_type: 'authorization_code', code: 'nope', redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
        assert.equal(bad.status, 400);
        assert.equal(bad.headers.get('cache-control'), 'no-store');
      });

      test('a wrong code_verifier gets invalid_grant', async () => {
        const clientId = await registerClient();
        const cookie = await signIn(server.baseUrl, tenant.member.email);
        const { challenge } = pkce();
        const code = (await authorize(cookie, clientId, { code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
        const answer = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: pkce().verifier });
        assert.equal(answer.status, 400);
        assert.equal(((await answer.json()) as { error: string }).error, 'invalid_grant');
      });

      test('a code used twice is refused', async () => {
        const flow = await codeFlow();
        const again = await token({ grant_type: 'authorization_code', code: flow.code, redirect_uri: REDIRECT, client_id: flow.clientId, code_verifier: flow.verifier });
        assert.equal(again.status, 400);
        assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
        // RFC 9700 §4.2.4: the tokens from the code's first use are revoked.
        assert.equal((await postMcp({ authorization: `Bearer ${flow.access_token}` })).status, 401);
      });

      test('a refresh token rotates, and replaying the old one is refused', async () => {
        const flow = await codeFlow();
        assert.ok(flow.refresh_token, 'offline_access yields a refresh token');
        const first = await token({ grant_type: 'refresh_token', refresh_token: flow.refresh_token!, client_id: flow.clientId });
        assert.equal(first.status, 200, await first.clone().text());
        const rotated = (await first.json()) as { access_token: string; refresh_token: string };
        assert.notEqual(rotated.refresh_token, flow.refresh_token);
        assert.equal((await postMcp({ authorization: `Bearer ${rotated.access_token}` })).status, 200);
        const replay = await token({ grant_type: 'refresh_token', refresh_token: flow.refresh_token!, client_id: flow.clientId });
        assert.equal(replay.status, 400);
        assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant');
        // Replay means the refresh token leaked: the whole grant goes (RFC 9700 §4.14.2).
        assert.equal((await postMcp({ authorization: `Bearer ${rotated.access_token}` })).status, 401);
        const after = await token({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token, client_id: flow.clientId });
        assert.equal(after.status, 400);
      });
    });

    describe('redirect URI matching (RFC 9700 §4.1.3)', () => {
      const HTTPS = 'https://app.example.com/oauth/callback';

      /** Where authorize sends the browser for this redirect_uri; a code only when it was accepted. */
      async function tryRedirect(clientId: string, cookie: string, redirectUri: string): Promise<URL> {
        const answer = await browserRequest(authorizeUrl(clientId, { redirect_uri: redirectUri, code_challenge: pkce().challenge, code_challenge_method: 'S256' }), cookie);
        assert.ok(answer.location, `authorize answered ${answer.status}: ${answer.body}`);
        return answer.location;
      }

      test('only the exact registered URI is accepted: trailing slash, extra query, case and look-alike hosts are refused', async () => {
        const answer = await register({ redirect_uris: [REDIRECT, HTTPS] });
        assert.equal(answer.status, 201, await answer.clone().text());
        const clientId = ((await answer.json()) as { client_id: string }).client_id;
        const cookie = await signIn(server.baseUrl, tenant.member.email);
        // Sanity: the registered URIs themselves go on to consent.
        for (const ok of [REDIRECT, HTTPS]) assert.equal((await tryRedirect(clientId, cookie, ok)).pathname, '/oauth/consent', ok);
        for (const bad of [
          `${HTTPS}/`,
          `${HTTPS}?next=1`,
          `${HTTPS}?`,
          'https://APP.example.com/oauth/callback',
          'https://app.example.com/OAuth/Callback',
          'HTTPS://app.example.com/oauth/callback',
          'https://app.example.com.evil.example/oauth/callback',
          'https://app-example.com/oauth/callback',
          'https://evil.example/oauth/callback',
          'https://app.example.com:8443/oauth/callback',
          'http://app.example.com/oauth/callback',
          `${REDIRECT}/`,
          `${REDIRECT}?x=1`,
          'http://localhost:53682/oauth/callback',
          'http://127.0.0.1:53682/oauth/callbacK',
        ]) {
          const location = await tryRedirect(clientId, cookie, bad);
          // Refused at Cairn's own error page: never a redirect (open or not) to the unregistered URI.
          assert.equal(location.origin, server.baseUrl, `${bad} -> ${location}`);
          assert.notEqual(location.pathname, '/oauth/consent', bad);
          assert.equal(location.searchParams.get('code'), null, bad);
          assert.match(location.searchParams.get('error') ?? '', /^invalid_(redirect|request)$/, `${bad} -> ${location}`);
        }
      });

      test('only a loopback port may vary (RFC 8252 §7.3); an https port may not', async () => {
        const answer = await register({ redirect_uris: [REDIRECT, HTTPS] });
        const clientId = ((await answer.json()) as { client_id: string }).client_id;
        const cookie = await signIn(server.baseUrl, tenant.member.email);
        const { verifier, challenge } = pkce();
        const otherPort = 'http://127.0.0.1:40123/oauth/callback';
        const redirect = await authorize(cookie, clientId, { redirect_uri: otherPort, code_challenge: challenge, code_challenge_method: 'S256' });
        assert.equal(`${redirect.origin}${redirect.pathname}`, otherPort);
        const code = redirect.searchParams.get('code')!;
        assert.ok(code, String(redirect));
        const exchanged = await token({ grant_type: 'authorization_code', code, redirect_uri: otherPort, client_id: clientId, code_verifier: verifier });
        assert.equal(exchanged.status, 200, await exchanged.clone().text());
        const refused = await tryRedirect(clientId, cookie, 'https://app.example.com:4443/oauth/callback');
        assert.equal(refused.origin, server.baseUrl);
        assert.match(refused.searchParams.get('error') ?? '', /invalid_redirect/);
      });
    });

    describe('authorization code lifetime', () => {
      test('codes live at most 10 minutes, and an expired code cannot be exchanged', async () => {
        const configured = oauthProviderOptions(server.baseUrl).codeExpiresIn;
        assert.ok(configured !== undefined && configured <= 600, `codeExpiresIn ${configured}`);
        const clientId = await registerClient();
        const cookie = await signIn(server.baseUrl, tenant.member.email);
        const { verifier, challenge } = pkce();
        const issuedBefore = Date.now();
        const code = (await authorize(cookie, clientId, { code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
        const db = server.cairn.store.db;
        const row = (await db
          .selectFrom('verification' as any)
          .selectAll()
          .where('identifier' as any, '=', hashOAuthToken(code))
          .executeTakeFirst()) as { expiresAt: Date | string } | undefined;
        assert.ok(row, 'the code is stored (hashed)');
        assert.ok(new Date(row.expiresAt).getTime() - issuedBefore <= 600_000 + 1000, `code expires at ${row.expiresAt}`);
        await db
          .updateTable('verification' as any)
          .set({ expiresAt: dbDate(new Date(Date.now() - 1000)) } as any)
          .where('identifier' as any, '=', hashOAuthToken(code))
          .execute();
        const answer = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
        assert.equal(answer.status, 400, await answer.clone().text());
        assert.equal(((await answer.json()) as { error: string }).error, 'invalid_grant');
      });
    });

    describe('OAuth access tokens on /mcp', () => {
      test('a valid token is served without the installer User-Agent', async () => {
        const { access_token } = await codeFlow();
        const answer = await postMcp({ authorization: `Bearer ${access_token}`, 'user-agent': 'some-ide/2.0' });
        assert.equal(answer.status, 200, await answer.clone().text());
        assert.match(await answer.text(), /list_datapacks/);
      });

      test('a token in the query string is never accepted', async () => {
        const { access_token } = await codeFlow();
        const answer = await postMcp({}, `/mcp?access_token=${encodeURIComponent(access_token)}`);
        assert.equal(answer.status, 401);
      });

      test('a token issued for another audience gets 401', async () => {
        const { access_token } = await codeFlow();
        await server.cairn.store.db
          .updateTable('oauthAccessToken' as any)
          .set({ resources: JSON.stringify(['https://other.example/mcp']) } as any)
          .where('token' as any, '=', hashOAuthToken(access_token))
          .execute();
        const answer = await postMcp({ authorization: `Bearer ${access_token}` });
        assert.equal(answer.status, 401);
        assert.match(answer.headers.get('www-authenticate')!, /error="invalid_token"/);
      });

      test('an expired token gets 401 invalid_token so the client refreshes', async () => {
        const { access_token } = await codeFlow();
        await server.cairn.store.db
          .updateTable('oauthAccessToken' as any)
          .set({ expiresAt: dbDate(new Date(Date.now() - 1000)) } as any)
          .where('token' as any, '=', hashOAuthToken(access_token))
          .execute();
        const verifier = new OAuthTokenVerifier(server.cairn.auth, server.mcpUrl);
        assert.deepEqual(await verifier.verify(access_token), { ok: false, reason: 'expired' });
        const answer = await postMcp({ authorization: `Bearer ${access_token}` });
        assert.equal(answer.status, 401);
        assert.match(answer.headers.get('www-authenticate')!, /error="invalid_token"/);
        assert.match(((await answer.json()) as { error: { message: string } }).error.message, /expired/);
      });

      test('a token granted without the mcp scope gets 403 insufficient_scope naming the scope, and reaches no tool', async () => {
        const { access_token } = await codeFlow({ scope: 'offline_access' });
        const answer = await postMcp({ authorization: `Bearer ${access_token}` });
        assert.equal(answer.status, 403);
        assert.match(answer.headers.get('www-authenticate')!, /error="insufficient_scope"/);
        assert.match(answer.headers.get('www-authenticate')!, /scope="mcp"/);
        const body = await answer.text();
        assert.match((JSON.parse(body) as { error: { message: string } }).error.message, /not granted the "mcp" scope/);
        assert.ok(!body.includes('list_datapacks'));
      });

      test('an unknown bearer token that is not an API key gets 401 invalid_token', async () => {
        const answer = await postMcp({ authorization: `Bearer ${b64url(randomBytes(24))}` });
        assert.equal(answer.status, 401);
        assert.match(answer.headers.get('www-authenticate')!, /error="invalid_token"/);
      });
    });
  });
}

/** better-auth stores dates on SQLite as ISO strings and on PostgreSQL as timestamps. */
function dbDate(date: Date): Date | string {
  return server.cairn.store.dialect === 'sqlite' ? date.toISOString() : date;
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { browserRequest, pkce, signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const REDIRECT = 'http://127.0.0.1:53682/oauth/callback';

let server: TestCairn;
let tenant: TestTenant;
const url = (path: string) => `${server.baseUrl}${path}`;

async function registerClient(name = 'Consent test client'): Promise<string> {
  const answer = await fetch(url('/api/auth/oauth2/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  assert.equal(answer.status, 201, await answer.clone().text());
  return ((await answer.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, challenge: string): string {
  const u = new URL(url('/api/auth/oauth2/authorize'));
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    state: 'st-9',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }))
    u.searchParams.set(k, v);
  return u.toString();
}

async function postMcp(token: string): Promise<number> {
  const answer = await fetch(url('/mcp'), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await answer.body?.cancel();
  return answer.status;
}

/** authorize → the consent page → Allow (form POST) → 303 to the client → tokens. */
async function connect(cookie: string, clientId: string) {
  const { verifier, challenge } = pkce();
  const first = await browserRequest(authorizeUrl(clientId, challenge), cookie);
  assert.equal(first.location?.pathname, '/oauth/consent', `${first.status} ${first.body}`);
  const page = await browserRequest(first.location!.toString(), cookie);
  assert.equal(page.headers['x-frame-options'], 'DENY');
  assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
  assert.match(String(page.headers['content-security-policy']), /form-action 'self' http:\/\/127\.0\.0\.1:53682/);
  const allowed = await browserRequest(url('/oauth/consent'), cookie, {
    accept: 'true',
    oauth_query: first.location!.search.slice(1),
  });
  assert.equal(allowed.status, 303, allowed.body);
  const code = allowed.location!.searchParams.get('code')!;
  assert.ok(code, String(allowed.location));
  const answer = await fetch(url('/api/auth/oauth2/token'), {
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
  assert.equal(answer.status, 200, await answer.clone().text());
  return (await answer.json()) as { access_token: string; refresh_token: string };
}

describe('OAuth consent and connected apps', () => {
  before(async () => {
    server = await startTestCairn();
    tenant = await createTenant(server.cairn);
  });
  after(() => server?.close());

  test('Allow answers 303 to the client redirect with code, state and iss; a second authorize skips the page', async () => {
    const clientId = await registerClient();
    const cookie = await signIn(server.baseUrl, tenant.member.email);
    const { verifier, challenge } = pkce();
    const first = await browserRequest(authorizeUrl(clientId, challenge), cookie);
    const allowed = await browserRequest(url('/oauth/consent'), cookie, {
      accept: 'true',
      oauth_query: first.location!.search.slice(1),
    });
    assert.equal(allowed.status, 303);
    assert.equal(`${allowed.location!.origin}${allowed.location!.pathname}`, REDIRECT);
    assert.equal(allowed.location!.searchParams.get('state'), 'st-9');
    assert.equal(allowed.location!.searchParams.get('iss'), `${server.baseUrl}/api/auth`);
    void verifier;
    // Consent is remembered per client: the next authorize goes straight back to the client.
    const again = await browserRequest(authorizeUrl(clientId, pkce().challenge), cookie);
    assert.equal(`${again.location!.origin}${again.location!.pathname}`, REDIRECT, String(again.location));
    assert.ok(again.location!.searchParams.get('code'));
  });

  test('Deny answers 303 to the client with access_denied, and no consent is remembered', async () => {
    const clientId = await registerClient();
    const cookie = await signIn(server.baseUrl, tenant.member.email);
    const first = await browserRequest(authorizeUrl(clientId, pkce().challenge), cookie);
    const denied = await browserRequest(url('/oauth/consent'), cookie, {
      accept: 'false',
      oauth_query: first.location!.search.slice(1),
    });
    assert.equal(denied.status, 303);
    assert.equal(denied.location!.searchParams.get('error'), 'access_denied');
    assert.equal(denied.location!.searchParams.get('code'), null);
    assert.equal(denied.location!.searchParams.get('state'), 'st-9');
    const again = await browserRequest(authorizeUrl(clientId, pkce().challenge), cookie);
    assert.equal(again.location?.pathname, '/oauth/consent');
  });

  test('the consent page allows only a registered redirect origin as form target; a foreign redirect_uri in its query adds nothing', async () => {
    const clientId = await registerClient();
    const cookie = await signIn(server.baseUrl, tenant.member.email);
    const first = await browserRequest(authorizeUrl(clientId, pkce().challenge), cookie);
    assert.equal(first.location?.pathname, '/oauth/consent');
    const formAction = (csp: unknown) => /form-action ([^;]*)/.exec(String(csp))?.[1];
    const genuine = await browserRequest(first.location!.toString(), cookie);
    assert.equal(formAction(genuine.headers['content-security-policy']), "'self' http://127.0.0.1:53682");
    // A loopback callback on another port is the same registered URI (RFC 8252), so it is allowed too.
    const forged = (changes: Record<string, string>) => {
      const u = new URL(first.location!.toString());
      for (const [k, v] of Object.entries(changes)) u.searchParams.set(k, v);
      return u.toString();
    };
    const otherPort = await browserRequest(forged({ redirect_uri: 'http://127.0.0.1:40001/oauth/callback' }), cookie);
    assert.equal(formAction(otherPort.headers['content-security-policy']), "'self' http://127.0.0.1:40001");
    const foreign: Record<string, string>[] = [
      { redirect_uri: 'https://evil.example/oauth/callback' },
      { redirect_uri: 'http://127.0.0.1:53682/other' },
      { redirect_uri: 'evil-app:/cb' },
      { client_id: 'no-such-client', redirect_uri: 'https://evil.example/oauth/callback' },
    ];
    for (const changes of foreign) {
      const page = await browserRequest(forged(changes), cookie);
      assert.equal(page.status, 200);
      assert.equal(formAction(page.headers['content-security-policy']), "'self'", JSON.stringify(changes));
      assert.doesNotMatch(String(page.headers['content-security-policy']), /evil/);
    }
  });

  test('a consent answer from another origin is refused (CSRF)', async () => {
    const clientId = await registerClient();
    const cookie = await signIn(server.baseUrl, tenant.member.email);
    const first = await browserRequest(authorizeUrl(clientId, pkce().challenge), cookie);
    const forged = await browserRequest(
      url('/oauth/consent'),
      cookie,
      { accept: 'true', oauth_query: first.location!.search.slice(1) },
      'https://evil.example',
    );
    assert.equal(forged.status, 403);
    assert.equal(forged.location, null);
  });

  test('Settings lists the connected app; revoking it stops its tokens at once', async () => {
    const clientId = await registerClient('Revocable app');
    const cookie = await signIn(server.baseUrl, tenant.member.email);
    const tokens = await connect(cookie, clientId);
    assert.equal(await postMcp(tokens.access_token), 200);
    // The app introduces itself in initialize: Connected apps says which client last used the grant.
    const init = await fetch(url('/mcp'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'claude-code', version: '2.1.330' },
        },
      }),
    });
    assert.equal(init.status, 200);
    await init.body?.cancel();

    const client = await fetch(url(`/api/v1/oauth/clients/${clientId}`), { headers: { cookie } });
    assert.equal(((await client.json()) as { client: { name: string } }).client.name, 'Revocable app');

    const listed = await fetch(url('/api/v1/oauth/apps'), { headers: { cookie } });
    assert.equal(listed.status, 200);
    const { apps } = (await listed.json()) as {
      apps: {
        clientId: string;
        name: string;
        redirectUris: string[];
        grantedAt: string;
        lastUsedAt: string | null;
        lastUsedClient: string | null;
        scopes: string[];
      }[];
    };
    const app = apps.find((a) => a.clientId === clientId);
    assert.ok(app, JSON.stringify(apps));
    assert.equal(app.name, 'Revocable app');
    assert.deepEqual(app.redirectUris, [REDIRECT]);
    assert.ok(app.grantedAt && app.lastUsedAt);
    assert.equal(app.lastUsedClient, 'claude-code 2.1.330');
    assert.deepEqual([...app.scopes].sort(), ['mcp', 'offline_access']);

    // Session only: an API key cannot see or revoke grants.
    const byKey = await fetch(url('/api/v1/oauth/apps'), { headers: { authorization: `Bearer ${tenant.member.key}` } });
    assert.equal(byKey.status, 403);
    // CSRF: a revoke riding on the cookie must come from the portal.
    const forged = await fetch(url(`/api/v1/oauth/apps/${clientId}`), {
      method: 'DELETE',
      headers: { cookie, origin: 'https://evil.example' },
    });
    assert.equal(forged.status, 403);

    const revoked = await fetch(url(`/api/v1/oauth/apps/${clientId}`), {
      method: 'DELETE',
      headers: { cookie, origin: server.baseUrl },
    });
    assert.equal(revoked.status, 200, await revoked.clone().text());
    assert.equal(await postMcp(tokens.access_token), 401);
    const refresh = await fetch(url('/api/auth/oauth2/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      }),
    });
    assert.equal(refresh.status, 400);
    const after = (await (await fetch(url('/api/v1/oauth/apps'), { headers: { cookie } })).json()) as {
      apps: { clientId: string }[];
    };
    assert.equal(
      after.apps.some((a) => a.clientId === clientId),
      false,
    );
    // The consent is gone too: the next authorize asks again.
    const again = await browserRequest(authorizeUrl(clientId, pkce().challenge), cookie);
    assert.equal(again.location?.pathname, '/oauth/consent');
    const twice = await fetch(url(`/api/v1/oauth/apps/${clientId}`), {
      method: 'DELETE',
      headers: { cookie, origin: server.baseUrl },
    });
    assert.equal(twice.status, 404);
    // The audit trail holds the grant and its revocation, by the member from their portal session.
    await server.cairn.domain.audit.flush();
    const trail = await server.cairn.store.listAuditEvents({ kind: 'oauth', targetId: clientId, limit: 10 });
    assert.deepEqual(
      trail.map((e) => [e.kind, e.actorUserId, e.credential?.type]),
      [
        ['oauth.revoked', tenant.member.id, 'session'],
        ['oauth.granted', tenant.member.id, 'session'],
      ],
    );
  });
});

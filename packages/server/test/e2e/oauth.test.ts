// OAuth for MCP clients: discovery, registration, known client schemes and tokens on /mcp (the code flow is oauth-code-flow.test.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { OAuthTokenVerifier } from '../../src/auth/oauth/access-tokens.js';
import { LOOPBACK_REFUSED_MESSAGE } from '../../src/auth/oauth/loopback.js';
import { hashOAuthToken } from '../../src/auth/oauth/oauth-options.js';
import { browserRequest, pkce, signIn } from '../../src/testing/oauth-flow.js';
import { startTestCairn } from '../../src/testing/test-cairn.js';
import {
  authorize,
  authorizeUrl,
  b64url,
  backendOptions,
  codeFlow,
  dbDate,
  describeOAuth,
  postMcp,
  REDIRECT,
  register,
  server,
  tenant,
  token,
  url,
} from './oauth-cairn.fixture.js';

describeOAuth('OAuth 2.1 for MCP clients', () => {
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
      assert.match(
        challenge,
        new RegExp(`resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"`),
      );
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
      const strict = await startTestCairn({ ...backendOptions, env: { CAIRN_OAUTH_ALLOW_LOOPBACK: 'false' } });
      try {
        const answer = await fetch(`${strict.baseUrl}/api/auth/oauth2/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'cli',
            redirect_uris: ['http://localhost:4711/oauth/callback'],
            token_endpoint_auth_method: 'none',
          }),
        });
        assert.equal(answer.status, 400);
        const body = (await answer.json()) as { error: string; error_description: string };
        assert.equal(body.error, 'invalid_redirect_uri');
        assert.equal(body.error_description, LOOPBACK_REFUSED_MESSAGE);
        assert.match(body.error_description, /API key/);
        const https = await fetch(`${strict.baseUrl}/api/auth/oauth2/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'web',
            redirect_uris: ['https://app.example.com/callback'],
            token_endpoint_auth_method: 'none',
          }),
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
      const redirect = await authorize(cookie, clientId, {
        redirect_uri: CURSOR,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      assert.equal(`${redirect.protocol}//${redirect.host}${redirect.pathname}`, CURSOR, String(redirect));
      assert.equal(redirect.searchParams.get('state'), 'st-123');
      const code = redirect.searchParams.get('code')!;
      assert.ok(code, String(redirect));
      const exchanged = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: CURSOR,
        client_id: clientId,
        code_verifier: verifier,
      });
      assert.equal(exchanged.status, 200, await exchanged.clone().text());
      const { access_token } = (await exchanged.json()) as { access_token: string };
      assert.equal((await postMcp({ authorization: `Bearer ${access_token}` })).status, 200);
      // Still exact: a look-alike cursor:// callback is refused.
      const other = await browserRequest(
        authorizeUrl(clientId, {
          redirect_uri: 'cursor://anysphere.cursor-mcp/oauth/callback2',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
        cookie,
      );
      assert.equal(other.location?.origin, server.baseUrl);
      assert.equal(other.location?.searchParams.get('code'), null);
    });

    test('vscode:// and vscode-insiders:// register alongside loopback; unlisted custom schemes are refused', async () => {
      const both = await register({
        redirect_uris: [
          'vscode://vscode.github-authentication/did-authenticate',
          'vscode-insiders://vscode.github-authentication/did-authenticate',
          REDIRECT,
        ],
      });
      assert.equal(both.status, 201, await both.clone().text());
      assert.deepEqual(((await both.json()) as { redirect_uris: string[] }).redirect_uris, [
        'vscode://vscode.github-authentication/did-authenticate',
        'vscode-insiders://vscode.github-authentication/did-authenticate',
        REDIRECT,
      ]);
      for (const uri of [
        'evilapp://callback',
        'cursor://anysphere.cursor-mcp/cb#frag',
        'cursor://user:pw@anysphere.cursor-mcp/cb',
      ]) {
        const refused = await register({ redirect_uris: [uri] });
        assert.equal(refused.status, 400, uri);
        assert.equal(((await refused.json()) as { error: string }).error, 'invalid_redirect_uri', uri);
      }
    });

    test('with CAIRN_OAUTH_CLIENT_SCHEMES empty, cursor:// is refused', async () => {
      const strict = await startTestCairn({ ...backendOptions, env: { CAIRN_OAUTH_CLIENT_SCHEMES: '' } });
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

// The OAuth authorization code flow with PKCE: consent, redirect URI matching, code lifetime.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { hashOAuthToken, oauthProviderOptions } from '../../src/auth/oauth/oauth-options.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { browserRequest, pkce, signIn } from '../../src/testing/oauth-flow.js';
import {
  authorize,
  authorizeUrl,
  codeFlow,
  dbDate,
  describeOAuth,
  postMcp,
  REDIRECT,
  register,
  registerClient,
  server,
  tenant,
  token,
} from './oauth-cairn.fixture.js';

describeOAuth('OAuth 2.1 authorization code flow', () => {
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
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
          requestInit: { headers: { Authorization: `Bearer ${flow.access_token}` } },
        }),
      );
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
      const code = (
        await authorize(cookie, clientId, { code_challenge: challenge, code_challenge_method: 'S256' })
      ).searchParams.get('code')!;
      const ok = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('cache-control'), 'no-store');
      const bad = await token({
        grant_type: 'authorization_code',
        code: 'nope',
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.headers.get('cache-control'), 'no-store');
    });

    test('a wrong code_verifier gets invalid_grant', async () => {
      const clientId = await registerClient();
      const cookie = await signIn(server.baseUrl, tenant.member.email);
      const { challenge } = pkce();
      const code = (
        await authorize(cookie, clientId, { code_challenge: challenge, code_challenge_method: 'S256' })
      ).searchParams.get('code')!;
      const answer = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: pkce().verifier,
      });
      assert.equal(answer.status, 400);
      assert.equal(((await answer.json()) as { error: string }).error, 'invalid_grant');
    });

    test('a code used twice is refused', async () => {
      const flow = await codeFlow();
      const again = await token({
        grant_type: 'authorization_code',
        code: flow.code,
        redirect_uri: REDIRECT,
        client_id: flow.clientId,
        code_verifier: flow.verifier,
      });
      assert.equal(again.status, 400);
      assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
      // RFC 9700 §4.2.4: the tokens from the code's first use are revoked.
      assert.equal((await postMcp({ authorization: `Bearer ${flow.access_token}` })).status, 401);
    });

    test('a refresh token rotates, and replaying the old one is refused', async () => {
      const flow = await codeFlow();
      assert.ok(flow.refresh_token, 'offline_access yields a refresh token');
      const first = await token({
        grant_type: 'refresh_token',
        refresh_token: flow.refresh_token!,
        client_id: flow.clientId,
      });
      assert.equal(first.status, 200, await first.clone().text());
      const rotated = (await first.json()) as { access_token: string; refresh_token: string };
      assert.notEqual(rotated.refresh_token, flow.refresh_token);
      assert.equal((await postMcp({ authorization: `Bearer ${rotated.access_token}` })).status, 200);
      const replay = await token({
        grant_type: 'refresh_token',
        refresh_token: flow.refresh_token!,
        client_id: flow.clientId,
      });
      assert.equal(replay.status, 400);
      assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant');
      // Replay means the refresh token leaked: the whole grant goes (RFC 9700 §4.14.2).
      assert.equal((await postMcp({ authorization: `Bearer ${rotated.access_token}` })).status, 401);
      const after = await token({
        grant_type: 'refresh_token',
        refresh_token: rotated.refresh_token,
        client_id: flow.clientId,
      });
      assert.equal(after.status, 400);
    });
  });

  describe('redirect URI matching (RFC 9700 §4.1.3)', () => {
    const HTTPS = 'https://app.example.com/oauth/callback';

    /** Where authorize sends the browser for this redirect_uri; a code only when it was accepted. */
    async function tryRedirect(clientId: string, cookie: string, redirectUri: string): Promise<URL> {
      const answer = await browserRequest(
        authorizeUrl(clientId, {
          redirect_uri: redirectUri,
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
        cookie,
      );
      assert.ok(answer.location, `authorize answered ${answer.status}: ${answer.body}`);
      return answer.location;
    }

    test('only the exact registered URI is accepted: trailing slash, extra query, case and look-alike hosts are refused', async () => {
      const answer = await register({ redirect_uris: [REDIRECT, HTTPS] });
      assert.equal(answer.status, 201, await answer.clone().text());
      const clientId = ((await answer.json()) as { client_id: string }).client_id;
      const cookie = await signIn(server.baseUrl, tenant.member.email);
      // Sanity: the registered URIs themselves go on to consent.
      for (const ok of [REDIRECT, HTTPS])
        assert.equal((await tryRedirect(clientId, cookie, ok)).pathname, '/oauth/consent', ok);
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
      const redirect = await authorize(cookie, clientId, {
        redirect_uri: otherPort,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      assert.equal(`${redirect.origin}${redirect.pathname}`, otherPort);
      const code = redirect.searchParams.get('code')!;
      assert.ok(code, String(redirect));
      const exchanged = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: otherPort,
        client_id: clientId,
        code_verifier: verifier,
      });
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
      const code = (
        await authorize(cookie, clientId, { code_challenge: challenge, code_challenge_method: 'S256' })
      ).searchParams.get('code')!;
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
      const answer = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
      });
      assert.equal(answer.status, 400, await answer.clone().text());
      assert.equal(((await answer.json()) as { error: string }).error, 'invalid_grant');
    });
  });
});

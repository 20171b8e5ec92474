// cairn-test: one backend pass (describeOAuth runs each suite on SQLite and on PostgreSQL itself)
// OAuth behind a firewall: a client that registers with a Client ID Metadata Document on a host
// Cairn cannot reach (.invalid never resolves, RFC 6761), signed in through a pinned copy.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cairnCommand } from '../../src/testing/cairn-process.js';
import { browserRequest, pkce, signIn } from '../../src/testing/oauth-flow.js';
import {
  authorize,
  authorizeUrl,
  describeOAuth,
  postMcp,
  REDIRECT,
  server,
  tenant,
  token,
} from './oauth-cairn.fixture.js';

const PINNED = 'https://codex.invalid/oauth/client.json';
const UNPINNED = 'https://other-vendor.invalid/oauth/client.json';

const folder = mkdtempSync(join(tmpdir(), 'cairn-pinned-'));
const pinnedFile = join(folder, 'pinned-clients.json');
writeFileSync(
  pinnedFile,
  JSON.stringify({
    [PINNED]: {
      client_id: PINNED,
      client_name: 'Pinned Codex',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  }),
);

describeOAuth(
  'OAuth with a pinned Client ID Metadata Document and no network to its vendor',
  () => {
    test('authorize → consent → code + PKCE → token → /mcp, then a refresh, and the client shown by its pinned name', async () => {
      const cookie = await signIn(server.baseUrl, tenant.member.email);
      const { verifier, challenge } = pkce();
      const redirect = await authorize(cookie, PINNED, { code_challenge: challenge, code_challenge_method: 'S256' });
      assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT, String(redirect));
      assert.equal(redirect.searchParams.get('state'), 'st-123');
      const code = redirect.searchParams.get('code');
      assert.ok(code, `no code in ${redirect}`);
      const answer = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: PINNED,
        code_verifier: verifier,
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      const tokens = (await answer.json()) as { access_token: string; refresh_token: string };
      const mcp = await postMcp({ authorization: `Bearer ${tokens.access_token}` });
      assert.equal(mcp.status, 200, await mcp.clone().text());
      assert.match(await mcp.text(), /"tools"/);
      const refreshed = await token({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: PINNED,
      });
      assert.equal(refreshed.status, 200, await refreshed.clone().text());
      const ctx = await server.cairn.auth.$context;
      const row = await ctx.adapter.findOne<{ name?: string }>({
        model: 'oauthClient',
        where: [{ field: 'clientId', value: PINNED }],
      });
      assert.equal(row?.name, 'Pinned Codex');
    });

    test('a redirect URI the pinned document does not list is refused: no consent, no code', async () => {
      const cookie = await signIn(server.baseUrl, tenant.member.email);
      const elsewhere = 'https://attacker.example/callback';
      const answer = await browserRequest(
        authorizeUrl(PINNED, {
          redirect_uri: elsewhere,
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
        cookie,
      );
      const where = `${answer.status} ${answer.location ?? ''} ${answer.body.slice(0, 300)}`;
      assert.ok(answer.location, where);
      assert.notEqual(answer.location.origin, 'https://attacker.example', where);
      assert.notEqual(answer.location.pathname, '/oauth/consent', where);
      assert.equal(answer.location.searchParams.get('code'), null, where);
      assert.equal(answer.location.searchParams.get('error'), 'invalid_redirect', where);
    });

    test('an unpinned client on a host Cairn cannot reach gets a page saying what to do, with 502', async () => {
      const cookie = await signIn(server.baseUrl, tenant.member.email);
      const answer = await browserRequest(
        authorizeUrl(UNPINNED, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
        cookie,
      );
      assert.equal(answer.status, 502, answer.body.slice(0, 300));
      assert.match(String(answer.headers['content-type']), /^text\/html/);
      assert.match(answer.body, /^<!doctype html>\s*<html lang="en">/);
      assert.match(answer.body, /<title>[^<]+<\/title>/);
      assert.match(answer.body, /could not reach other-vendor\.invalid/);
      assert.match(answer.body, /CAIRN_OAUTH_PINNED_CLIENTS/);
      assert.match(answer.body, /API key/);
      // The headers every Cairn page sends: no framing, no sniffing, nothing loaded from elsewhere, never cached.
      assert.match(String(answer.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.match(String(answer.headers['content-security-policy']), /default-src 'self'/);
      assert.equal(answer.headers['x-frame-options'], 'DENY');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
      assert.equal(answer.headers['cache-control'], 'no-store');
    });

    test('a caller that asks for JSON still gets the OAuth error as JSON', async () => {
      const cookie = await signIn(server.baseUrl, tenant.member.email);
      const answer = await fetch(
        authorizeUrl(UNPINNED, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
        { headers: { cookie, accept: 'application/json' }, redirect: 'manual' },
      );
      assert.equal(answer.status, 400);
      const body = (await answer.json()) as { error: string; error_description: string };
      assert.equal(body.error, 'invalid_client');
      assert.match(
        body.error_description,
        /^Client ID Metadata Document unreachable: could not resolve other-vendor\.invalid/,
      );
    });
  },
  { CAIRN_OAUTH_PINNED_CLIENTS: pinnedFile },
);

describe('a pinned document with a bad entry', () => {
  test('stops `cairn serve` at start, naming the file and the entry', async () => {
    const { spawn } = await import('node:child_process');
    const bad = join(folder, 'bad.json');
    const evil = 'https://evil.invalid/client.json';
    writeFileSync(
      bad,
      JSON.stringify({
        [PINNED]: { client_id: PINNED, redirect_uris: [REDIRECT] },
        [evil]: { client_id: PINNED, redirect_uris: [REDIRECT] },
      }),
    );
    const child = spawn(process.execPath, [...cairnCommand(), 'serve'], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: {
        PATH: process.env.PATH ?? '',
        CAIRN_DATA_DIR: join(folder, 'data'),
        PORT: '0',
        CAIRN_OAUTH_PINNED_CLIENTS: bad,
      },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 1, stderr);
    assert.match(
      stderr,
      /CAIRN_OAUTH_PINNED_CLIENTS: .*bad\.json, entry "https:\/\/evil\.invalid\/client\.json": its client_id is not https:\/\/evil\.invalid\/client\.json/,
      stderr,
    );
  });
});

// What the OAuth journeys share: a Cairn per backend, and the client's side of each OAuth step.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { browserRequest, pkce, signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn, type TestCairnOptions } from '../../src/testing/test-cairn.js';

export const REDIRECT = 'http://127.0.0.1:53682/oauth/callback';

/** The Cairn and tenant of the running describeOAuth suite, and what starts another Cairn on its backend. */
export let server: TestCairn;
export let tenant: TestTenant;
export let backendOptions: TestCairnOptions;

export const url = (path: string) => `${server.baseUrl}${path}`;
export const b64url = (buf: Buffer) => buf.toString('base64url');

export async function register(body: Record<string, unknown> = {}): Promise<Response> {
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

export async function registerClient(): Promise<string> {
  const answer = await register();
  assert.equal(answer.status, 201, await answer.clone().text());
  return ((await answer.json()) as { client_id: string }).client_id;
}

export function authorizeUrl(clientId: string, params: Record<string, string | undefined>): string {
  const u = new URL(url('/api/auth/oauth2/authorize'));
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    state: 'st-123',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** authorize → consent page → consent accepted → the client's redirect with code, state and iss. */
export async function authorize(
  cookie: string,
  clientId: string,
  params: Record<string, string | undefined>,
): Promise<URL> {
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

export async function token(form: Record<string, string>): Promise<Response> {
  return fetch(url('/api/auth/oauth2/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
}

/** The whole code flow for the tenant's member; returns the token response. */
export async function codeFlow(
  params: Record<string, string> = {},
): Promise<{ clientId: string; access_token: string; refresh_token?: string; code: string; verifier: string }> {
  const clientId = await registerClient();
  const cookie = await signIn(server.baseUrl, tenant.member.email);
  const { verifier, challenge } = pkce();
  const redirect = await authorize(cookie, clientId, {
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  });
  const code = redirect.searchParams.get('code')!;
  assert.ok(code, `no code in ${redirect}`);
  const answer = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  return { clientId, code, verifier, ...((await answer.json()) as { access_token: string; refresh_token?: string }) };
}

export async function postMcp(headers: Record<string, string>, path = '/mcp'): Promise<Response> {
  return fetch(url(path), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

/** Runs the suite once per backend, each on a Cairn of its own (with `env` added to its settings) with a tenant. */
export function describeOAuth(title: string, suite: () => void, env: Record<string, string> = {}): void {
  forEachBackend(({ name: backend, skip, options }) => {
    describe(`${title} (${backend})`, { skip }, () => {
      before(async () => {
        backendOptions = { ...options, env: { ...options.env, ...env } };
        server = await startTestCairn(backendOptions);
        tenant = await createTenant(server.cairn);
      });
      after(() => server?.close());
      suite();
    });
  });
}

/** better-auth stores dates on SQLite as ISO strings and on PostgreSQL as timestamps. */
export function dbDate(date: Date): Date | string {
  return server.cairn.store.dialect === 'sqlite' ? date.toISOString() : date;
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { browserRequest, signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

// Never listened on: the "browser" below stops at the redirect and hands its URL back.
const REDIRECT = 'http://127.0.0.1:53682/oauth/callback';

let server: TestCairn;
let tenant: TestTenant;
const url = (path: string) => `${server.baseUrl}${path}`;

/** The SDK's OAuth client provider with in-memory storage; its "browser" is a signed-in user who clicks Allow. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = '';
  redirects = 0;
  /** Where the authorization server sent the browser back to (the loopback callback with code, state and iss). */
  callback: URL | undefined;
  private readonly expectedState = `state-${Math.random().toString(36).slice(2)}`;

  constructor(private readonly cookie: string) {}

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK OAuth test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'mcp offline_access',
    };
  }
  state(): string {
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }
  /** Kept with the verifier, so the SDK can check the callback against the authorization server it started with. */
  discovery: OAuthDiscoveryState | undefined;
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.redirects += 1;
    assert.equal(`${authorizationUrl.origin}${authorizationUrl.pathname}`, url('/api/auth/oauth2/authorize'));
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    let step = await browserRequest(authorizationUrl.toString(), this.cookie);
    assert.ok(step.location, `authorize answered ${step.status}: ${step.body}`);
    if (step.location.pathname === '/oauth/consent') {
      const page = await browserRequest(step.location.toString(), this.cookie);
      assert.equal(page.status, 200);
      step = await browserRequest(url('/oauth/consent'), this.cookie, {
        accept: 'true',
        oauth_query: step.location.search.slice(1),
      });
      assert.equal(step.status, 303, step.body);
    }
    const back = step.location!;
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT, String(back));
    assert.equal(back.searchParams.get('state'), this.expectedState);
    this.callback = back;
  }
}

describe('the MCP SDK client with its OAuth client provider (in-process)', () => {
  before(async () => {
    server = await startTestCairn();
    tenant = await createTenant(server.cairn);
  });
  after(() => server?.close());

  test('given only the MCP URL it discovers, registers, signs in through the browser, and lists datapacks; a second start reuses the tokens', async () => {
    const provider = new MemoryOAuthProvider(await signIn(server.baseUrl, tenant.member.email));
    const first = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider });
    await assert.rejects(new Client({ name: 'sdk-oauth-test', version: '1.0.0' }).connect(first), UnauthorizedError);
    assert.equal(provider.redirects, 1);
    assert.ok(provider.client?.client_id, 'registered dynamically');
    assert.ok(provider.callback?.searchParams.get('code'), 'the browser came back with a code');
    await first.finishAuth(provider.callback!.searchParams);
    assert.ok(provider.saved?.access_token && provider.saved.refresh_token, JSON.stringify(provider.saved));

    for (const run of ['after the browser', 'with stored tokens']) {
      const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
      try {
        const { datapacks } = await callTool<{ datapacks: { name: string }[] }>(client, 'list_datapacks');
        assert.ok(Array.isArray(datapacks) && datapacks.length > 0, `${run}: ${JSON.stringify(datapacks)}`);
      } finally {
        await client.close();
      }
    }
    assert.equal(provider.redirects, 1, 'no second browser trip');
  });
});

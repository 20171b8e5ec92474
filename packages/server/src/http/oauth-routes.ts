import { type Context, Hono } from 'hono';
import type { Auth } from '../auth/better-auth.js';
import { cimdFailure } from '../auth/oauth/cimd.js';
import { AUTH_BASE_PATH, mcpResource, OAUTH_PAGES, OAUTH_SCOPES, oauthIssuer } from '../auth/oauth/oauth-options.js';
import { planRegistration, type RegistrationSettings } from '../auth/oauth/registration-policy.js';
import type { DomainDeps } from '../domain/deps.js';
import { auditOAuthGrant } from './audit-auth-events.js';
import { type ClientAddressOf, withClientAddress } from './client-address.js';
import { cimdFailurePage, wantsPage } from './oauth-failure-page.js';

/** What the OAuth edge needs. */
export interface OAuthRouteDeps extends RegistrationSettings {
  auth: Auth;
  clientAddress: ClientAddressOf;
  baseUrl: string;
  /** Where grants are recorded (the audit trail). */
  domain?: DomainDeps;
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/**
 * Discovery documents (RFC 9728, RFC 8414) and the few places Cairn adjusts better-auth's OAuth
 * endpoints: registration defaults and policy, the default `resource`, and RFC-exact token errors.
 */
export function createOAuthRoutes(deps: OAuthRouteDeps): Hono {
  const app = new Hono();
  const resource = mcpResource(deps.baseUrl);
  const issuer = oauthIssuer(deps.baseUrl);
  const issuerPath = new URL(issuer).pathname;
  /** better-auth's answer to the request (or one made from it), which its CIMD fetch limit counts against the client's address. */
  const forward = (c: Context, request = c.req.raw) =>
    deps.auth.handler(withClientAddress(request, deps.clientAddress(c)));

  const protectedResource = () => ({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Cairn',
  });
  app.get('/.well-known/oauth-protected-resource/mcp', (c) => c.json(protectedResource()));
  app.get('/.well-known/oauth-protected-resource', (c) => c.json(protectedResource()));

  // RFC 8414 §3: the issuer has a path, so its metadata lives at the path-inserted URL.
  const serverMetadata = async () => {
    const metadata: Record<string, unknown> = { ...(await deps.auth.api.getOAuthServerConfig()) };
    // Introspection is not on the /api/auth allow-list (auth-routes.ts): Cairn is its own resource server.
    for (const key of Object.keys(metadata)) if (key.startsWith('introspection_')) delete metadata[key];
    return { ...metadata, issuer, code_challenge_methods_supported: ['S256'] };
  };
  for (const path of [
    `/.well-known/oauth-authorization-server${issuerPath}`,
    `${issuerPath}/.well-known/oauth-authorization-server`,
  ]) {
    app.get(path, async (c) => c.json(await serverMetadata()));
  }

  app.post(`${AUTH_BASE_PATH}/oauth2/register`, async (c) => {
    const body: unknown = await c.req.raw
      .clone()
      .json()
      .catch(() => undefined);
    if (!isObject(body)) return forward(c);
    const plan = planRegistration(body, deps);
    if ('refuse' in plan) return c.json(plan.refuse, 400, NO_STORE);
    const answer = await forward(c, withJsonBody(c.req.raw, plan.forward));
    if (!plan.rewritten || answer.status !== 201) return answer;
    const registered = (await answer.json()) as Record<string, unknown> & { client_id: string };
    const real = plan.realRedirectUris(Array.isArray(registered.redirect_uris) ? registered.redirect_uris : []);
    const ctx = await deps.auth.$context;
    await ctx.adapter.update({
      model: 'oauthClient',
      where: [{ field: 'clientId', value: registered.client_id }],
      update: { redirectUris: real },
    });
    const headers = new Headers(answer.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify({ ...registered, redirect_uris: real }), { status: 201, headers });
  });

  // RFC 8707: without a `resource` the plugin mints an unbound token; every Cairn token is for /mcp.
  app.get(`${AUTH_BASE_PATH}/oauth2/authorize`, async (c) => {
    const url = new URL(c.req.raw.url);
    if (!url.searchParams.has('resource')) url.searchParams.set('resource', resource);
    const answer = await forward(c, new Request(url, c.req.raw));
    // A browser whose app's metadata document could not be used gets a page saying what to do, not the JSON error.
    if (answer.ok || !wantsPage(c.req.raw) || !answer.headers.get('content-type')?.includes('application/json'))
      return answer;
    const failure = cimdFailure(
      await answer
        .clone()
        .json()
        .catch(() => undefined),
    );
    if (!failure) return answer;
    return cimdFailurePage(
      failure.kind,
      failure.description,
      url.searchParams.get('client_id') ?? '',
      deps.baseUrl,
      answer.headers.get('retry-after'),
    );
  });

  app.post(`${AUTH_BASE_PATH}/oauth2/token`, async (c) => {
    const response = await forward(c);
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(NO_STORE)) headers.set(name, value);
    if (response.ok) return new Response(response.body, { status: response.status, headers });
    const error = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: string; error_description?: string } | undefined;
    // RFC 7636 §4.6: a verifier that does not match the challenge is invalid_grant.
    if (error?.error_description === 'code verification failed') {
      headers.delete('content-length');
      return new Response(
        JSON.stringify({
          error: 'invalid_grant',
          error_description: 'The code_verifier does not match the code_challenge.',
        }),
        { status: 400, headers },
      );
    }
    return new Response(response.body, { status: response.status, headers });
  });

  // The consent page's form posts here; the browser then follows a 303 to the client's redirect
  // (a real redirect, never a script navigation), with the code or access_denied, state and iss.
  app.post(OAUTH_PAGES.consent, async (c) => {
    const origin = new URL(deps.baseUrl).origin;
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const oauthQuery = typeof form.oauth_query === 'string' ? form.oauth_query : '';
    const back = (message: string) => {
      const query = new URLSearchParams(oauthQuery);
      query.set('cairn_error', message);
      return c.redirect(`${OAUTH_PAGES.consent}?${query}`, 303);
    };
    // CSRF: only the portal's own page may answer for the user.
    if (c.req.header('origin') !== origin)
      return c.json(
        { error: { code: 'forbidden', message: 'Answer the consent request from the Cairn portal page itself.' } },
        403,
      );
    if (!oauthQuery) return back('The sign-in request is incomplete. Start connecting again from the app.');
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json', origin });
    const cookie = c.req.header('cookie');
    if (cookie) headers.set('cookie', cookie);
    const answer = await forward(
      c,
      new Request(`${deps.baseUrl}${AUTH_BASE_PATH}/oauth2/consent`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ accept: form.accept === 'true', oauth_query: oauthQuery }),
      }),
    );
    const body = (await answer.json().catch(() => undefined)) as
      | { url?: string; redirect_uri?: string; message?: string; error_description?: string }
      | undefined;
    const target = body?.url ?? body?.redirect_uri;
    if (!answer.ok || !target) {
      if (answer.status === 401)
        return c.redirect(
          `${OAUTH_PAGES.login}?next=${encodeURIComponent(`${OAUTH_PAGES.consent}?${oauthQuery}`)}`,
          303,
        );
      return back(
        `Cairn could not complete the connection (${body?.error_description ?? body?.message ?? `HTTP ${answer.status}`}). The request may have expired: start connecting again from the app.`,
      );
    }
    if (form.accept === 'true' && deps.domain) auditOAuthGrant(deps.domain, deps.auth, headers, oauthQuery);
    return c.redirect(target, 303);
  });

  return app;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withJsonBody(original: Request, body: unknown): Request {
  const headers = new Headers(original.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  return new Request(original.url, { method: original.method, headers, body: JSON.stringify(body) });
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AUTH_ROUTES } from '../../src/auth/auth-routes.js';
import type { Auth } from '../../src/auth/better-auth.js';
import { AUTH_BASE_PATH } from '../../src/auth/oauth/oauth-options.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { countRows } from '../../src/testing/count-rows.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { rawRequest } from '../../src/testing/raw-request.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

/** Every HTTP endpoint better-auth has, as better-auth itself lists them (so an upgrade's new routes are covered). */
function betterAuthEndpoints(auth: Auth): { method: string; path: string; name: string }[] {
  const out: { method: string; path: string; name: string }[] = [];
  for (const [name, endpoint] of Object.entries(
    auth.api as Record<string, { path?: string; options?: { method?: string | string[] } }>,
  )) {
    if (typeof endpoint?.path !== 'string') continue;
    const declared = endpoint.options?.method ?? 'GET';
    const methods = (Array.isArray(declared) ? declared : [declared]).flatMap((m) =>
      m === '*' ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : [m],
    );
    for (const method of methods) out.push({ method, path: endpoint.path, name });
  }
  return out;
}

const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, 'x1');
const isAllowed = (method: string, path: string) => AUTH_ROUTES.some((r) => r.method === method && r.path === path);

forEachBackend(({ name: backend, skip, options }) => {
  describe(`only Cairn's routes under /api/auth (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    let cookie: string;

    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
      cookie = await signIn(server.baseUrl, tenant.owner.email);
    });
    after(() => server?.close());

    const counts = async () => {
      const count = (table: 'user' | 'organization' | 'member' | 'team' | 'invite') =>
        countRows(server.cairn.store.db, table);
      return {
        users: await count('user'),
        organizations: await count('organization'),
        members: await count('member'),
        teams: await count('team'),
        invites: await count('invite'),
      };
    };

    test('the allow-list names only endpoints better-auth has (or Cairn serves itself at that path)', () => {
      const endpoints = betterAuthEndpoints(server.cairn.auth);
      assert.ok(endpoints.length > 60, `better-auth lists its endpoints (${endpoints.length})`);
      for (const r of AUTH_ROUTES) {
        assert.ok(
          endpoints.some((e) => e.method === r.method && e.path === r.path),
          `${r.method} ${r.path} is a better-auth endpoint`,
        );
        assert.ok(r.why.length > 10, `${r.method} ${r.path} says why it is reachable`);
      }
    });

    test('every better-auth endpoint not on the allow-list answers a JSON 404, signed in or not, and changes nothing', async () => {
      const before = await counts();
      const blocked = betterAuthEndpoints(server.cairn.auth).filter((e) => !isAllowed(e.method, e.path));
      assert.ok(
        blocked.some((e) => e.path === '/sign-up/email') && blocked.some((e) => e.path === '/organization/create'),
        'sign-up and organization/create are among them',
      );
      // A body that would create a user, an organization, an invitation or a team if any route took it.
      const body = JSON.stringify({
        email: `eve-${backend}@evil.example`,
        password: 'evil password 123456',
        name: 'Eve',
        slug: 'finance-x',
        organizationId: tenant.orgId,
        role: 'admin',
        userId: tenant.outsider.id,
        teamId: tenant.teamId,
        redirect_uris: ['https://evil.example/cb'],
      });
      for (const e of blocked) {
        for (const who of [{}, { cookie }] as Record<string, string>[]) {
          const withBody = e.method !== 'GET' && e.method !== 'DELETE';
          const answer = await fetch(`${server.baseUrl}${AUTH_BASE_PATH}${concrete(e.path)}`, {
            method: e.method,
            headers: { 'content-type': 'application/json', origin: server.baseUrl, ...who },
            body: withBody ? body : undefined,
          });
          const label = `${e.method} ${e.path} (${e.name})${'cookie' in who ? ' with a session' : ''}`;
          assert.equal(answer.status, 404, label);
          const json = (await answer.json()) as { error?: { code?: string } };
          assert.equal(json.error?.code, 'not_found', label);
        }
      }
      assert.deepEqual(await counts(), before, 'no user, organization, member, team or invitation was made');
      assert.equal(await server.cairn.store.findUserByEmail(`eve-${backend}@evil.example`), undefined);
    });

    test('sign-up cannot be reached by another spelling of its path', async () => {
      const before = await counts();
      const body = JSON.stringify({
        email: `mallory-${backend}@evil.example`,
        password: 'evil password 123456',
        name: 'Mallory',
      });
      const headers = { 'content-type': 'application/json', origin: server.baseUrl };
      for (const path of [
        '/api/auth/sign-up/email/',
        '/api/auth//sign-up/email',
        '/api/auth/sign-up%2Femail',
        '/api/auth/sign-up/%65mail',
        '/api/auth/SIGN-UP/EMAIL',
        '/api/auth/sign-in/email/../../sign-up/email',
        '/api/auth/sign-in/../sign-up/email',
        '/api/auth/./sign-up/email',
      ]) {
        const answer = await rawRequest(server.baseUrl, path, { method: 'POST', headers, body });
        assert.ok(answer.status >= 400, `${path} answered ${answer.status}: ${answer.body}`);
      }
      assert.deepEqual(await counts(), before);
    });

    test('allow-listed endpoints still reach better-auth, and none of them creates a user', async () => {
      const before = await counts();
      const signUpBody = JSON.stringify({
        email: `oscar-${backend}@evil.example`,
        password: 'evil password 123456',
        name: 'Oscar',
        requestSignUp: true,
      });
      const gate404 = (status: number, text: string) =>
        status === 404 && /"code":"not_found"/.test(text) && /Nothing at/.test(text);
      for (const r of AUTH_ROUTES) {
        const form = r.path === '/oauth2/token' || r.path === '/oauth2/revoke';
        const answer = await fetch(`${server.baseUrl}${AUTH_BASE_PATH}${r.path}`, {
          method: r.method,
          redirect: 'manual',
          headers: {
            'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
            origin: server.baseUrl,
          },
          body: r.method === 'POST' ? (form ? '' : signUpBody) : undefined,
        });
        assert.ok(!gate404(answer.status, await answer.text()), `${r.method} ${r.path} is served`);
      }
      // And they work end to end: sign in, the session is good, sign out ends it.
      const session = await signIn(server.baseUrl, tenant.member.email);
      const me = await fetch(`${server.baseUrl}/api/v1/me`, { headers: { cookie: session } });
      assert.equal(me.status, 200);
      const out = await fetch(`${server.baseUrl}${AUTH_BASE_PATH}/sign-out`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.baseUrl, cookie: session },
        body: '{}',
      });
      assert.equal(out.status, 200);
      assert.equal((await fetch(`${server.baseUrl}/api/v1/me`, { headers: { cookie: session } })).status, 401);
      assert.equal((await counts()).users, before.users);
    });

    test('defence in depth: better-auth itself refuses sign-up and user-made organizations, even past the allow-list', async () => {
      const before = await counts();
      const signUp = await server.cairn.auth.handler(
        new Request(`${server.baseUrl}${AUTH_BASE_PATH}/sign-up/email`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: server.baseUrl },
          body: JSON.stringify({
            email: `trudy-${backend}@evil.example`,
            password: 'evil password 123456',
            name: 'Trudy',
          }),
        }),
      );
      assert.equal(signUp.status, 400);
      assert.match(await signUp.text(), /EMAIL_PASSWORD_SIGN_UP_DISABLED/);
      const org = await server.cairn.auth.handler(
        new Request(`${server.baseUrl}${AUTH_BASE_PATH}/organization/create`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: server.baseUrl, cookie },
          body: JSON.stringify({ name: 'Finance', slug: `finance-${backend}` }),
        }),
      );
      assert.equal(org.status, 403, await org.clone().text());
      assert.deepEqual(await counts(), before);
    });
  });
});

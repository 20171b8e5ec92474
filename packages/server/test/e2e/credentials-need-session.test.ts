import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { countRows } from '../../src/testing/count-rows.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

forEachBackend(({ name: backend, skip, options }) => {
  describe(`a key cannot mint credentials or change access (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    let ownerKeyId: string;

    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
      ownerKeyId = (
        await server.cairn.store.db
          .selectFrom('api_key')
          .select('id')
          .where('user_id', '=', tenant.owner.id)
          .executeTakeFirstOrThrow()
      ).id;
    });
    after(() => server?.close());

    /** Everything a stolen key could use to outlive its revocation or widen access. */
    const snapshot = async () => {
      const db = server.cairn.store.db;
      const rows = (table: 'api_key' | 'setup_code' | 'invite' | 'team' | 'member') => countRows(db, table);
      const oauthClients = await countRows(db, 'oauthClient' as 'user');
      return {
        keys: await rows('api_key'),
        liveKeys: Number(
          (
            await db
              .selectFrom('api_key')
              .where('revoked_at', 'is', null)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
        setupCodes: await rows('setup_code'),
        invites: await rows('invite'),
        teams: await rows('team'),
        teamMembers: (await server.cairn.store.listTeams(tenant.orgId)).map(
          (t) => `${t.name}:${t.members.map((m) => m.email).join(',')}`,
        ),
        roles: (await server.cairn.store.listOrgMembers(tenant.orgId)).map((m) => `${m.email}:${m.role}`),
        oauthClients,
      };
    };

    const attempts = () => [
      { method: 'POST', path: '/api/v1/keys', body: { name: 'escalate' } },
      { method: 'GET', path: '/api/v1/keys' },
      { method: 'DELETE', path: `/api/v1/keys/${ownerKeyId}` },
      { method: 'POST', path: '/api/v1/setup-codes', body: {} },
      { method: 'POST', path: `/api/v1/organizations/${tenant.orgId}/invitations`, body: { role: 'admin' } },
      { method: 'POST', path: `/api/v1/organizations/${tenant.orgId}/invitations`, body: { role: 'member' } },
      { method: 'POST', path: `/api/v1/organizations/${tenant.orgId}/teams`, body: { name: 'Shadow team' } },
      {
        method: 'PATCH',
        path: `/api/v1/organizations/${tenant.orgId}/members/${tenant.member.id}`,
        body: { role: 'admin' },
      },
      { method: 'POST', path: `/api/v1/teams/${tenant.teamId}/members`, body: { userId: tenant.owner.id } },
      { method: 'GET', path: '/api/v1/oauth/apps' },
      { method: 'DELETE', path: '/api/v1/oauth/apps/some-client' },
      { method: 'GET', path: '/api/v1/oauth/clients/some-client' },
    ];

    test("an organization owner's API key is refused (403, with what to do) on every credential and access route, and nothing is made", async () => {
      const before = await snapshot();
      for (const a of attempts()) {
        const answer = await fetch(`${server.baseUrl}${a.path}`, {
          method: a.method,
          headers: {
            authorization: `Bearer ${tenant.owner.key}`,
            'content-type': 'application/json',
            origin: server.baseUrl,
          },
          body: a.body ? JSON.stringify(a.body) : undefined,
        });
        const label = `${a.method} ${a.path} ${JSON.stringify(a.body ?? '')}`;
        assert.equal(answer.status, 403, label);
        const { error } = (await answer.json()) as { error: { code: string; message: string } };
        assert.equal(error.code, 'forbidden', label);
        assert.match(
          error.message,
          /An API key cannot do this: .*signed in to the Cairn portal .* or with the cairn CLI/,
          label,
        );
      }
      // better-auth's own client-creation route is not reachable at all.
      const create = await fetch(`${server.baseUrl}/api/auth/oauth2/create-client`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.owner.key}`,
          'content-type': 'application/json',
          origin: server.baseUrl,
        },
        body: JSON.stringify({ redirect_uris: ['https://evil.example/cb'] }),
      });
      assert.equal(create.status, 404);
      assert.deepEqual(await snapshot(), before);
    });

    test('the same calls from a portal session work (the refusal is about the credential, not the role)', async () => {
      const cookie = await signIn(server.baseUrl, tenant.owner.email);
      const send = (method: string, path: string, body?: unknown) =>
        fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { cookie, 'content-type': 'application/json', origin: server.baseUrl },
          body: body ? JSON.stringify(body) : undefined,
        });
      const before = await snapshot();
      assert.equal((await send('POST', '/api/v1/setup-codes', {})).status, 201);
      assert.equal(
        (await send('POST', `/api/v1/organizations/${tenant.orgId}/invitations`, { role: 'admin' })).status,
        201,
      );
      assert.equal(
        (await send('POST', `/api/v1/organizations/${tenant.orgId}/teams`, { name: 'Real team' })).status,
        201,
      );
      assert.equal((await send('POST', '/api/v1/keys', { name: 'from the portal' })).status, 201);
      const after = await snapshot();
      assert.deepEqual(
        [after.setupCodes, after.invites, after.teams, after.keys],
        [before.setupCodes + 1, before.invites + 1, before.teams + 1, before.keys + 1],
      );
    });
  });
});

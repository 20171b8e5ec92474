import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { browserSession } from '../../src/testing/browser-session.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
const browser = () => browserSession(() => server.baseUrl);

before(async () => {
  server = await startTestCairn();
});
after(() => server?.close());

describe('accounts through the portal API', () => {
  const admin = browser();
  let orgId: string;

  test('the first sign-up creates the organization and signs in; later sign-ups need an invitation', async () => {
    assert.equal((await admin('/api/v1/config')).body.signUpOpen, true);
    const signup = await admin('/api/v1/signup', {
      method: 'POST',
      body: { email: 'ada@example.test', name: 'Ada', password: 'correct horse battery', organization: 'Analytical' },
    });
    assert.equal(signup.status, 201);
    assert.equal(signup.body.organization.role, 'owner');
    const me = await admin('/api/v1/me');
    assert.equal(me.body.user.email, 'ada@example.test');
    orgId = me.body.organizations[0].id;
    const stranger = await browser()('/api/v1/signup', {
      method: 'POST',
      body: { email: 'eve@example.test', password: 'correct horse battery' },
    });
    assert.equal(stranger.status, 403);
    assert.match(stranger.body.error.message, /join by invitation/);
  });

  test('an invite link lets one person join with the invited role, once', async () => {
    const invite = await admin(`/api/v1/organizations/${orgId}/invitations`, {
      method: 'POST',
      body: { role: 'member' },
    });
    assert.equal(invite.status, 201);
    const token = new URL(invite.body.inviteUrl).searchParams.get('invite');
    const bob = browser();
    const joined = await bob('/api/v1/signup', {
      method: 'POST',
      body: { email: 'bob@example.test', name: 'Bob', password: 'correct horse battery', invite: token },
    });
    assert.equal(joined.status, 201);
    assert.deepEqual([joined.body.organization.id, joined.body.organization.role], [orgId, 'member']);
    const again = await browser()('/api/v1/signup', {
      method: 'POST',
      body: { email: 'carol@example.test', password: 'correct horse battery', invite: token },
    });
    assert.equal(again.status, 400);
    assert.match(again.body.error.message, /invite link is not valid/);
    assert.equal(await server.cairn.store.findUserByEmail('carol@example.test'), undefined, 'nothing half-made stays');
    assert.equal(
      (await bob(`/api/v1/organizations/${orgId}/invitations`, { method: 'POST', body: {} })).status,
      403,
      'members cannot invite',
    );
    const members = await admin(`/api/v1/organizations/${orgId}/members`);
    assert.deepEqual(
      members.body.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`),
      ['ada@example.test:owner', 'bob@example.test:member'],
    );
  });

  test('roles: admins promote members, only owners touch owners, and the last owner cannot step down', async () => {
    const bobId = (await server.cairn.store.findUserByEmail('bob@example.test'))!.id;
    const adaId = (await server.cairn.store.findUserByEmail('ada@example.test'))!.id;
    const role = (as: ReturnType<typeof browser>, userId: string, value: string) =>
      as(`/api/v1/organizations/${orgId}/members/${userId}`, { method: 'PATCH', body: { role: value } });
    const lastOwner = await role(admin, adaId, 'member');
    assert.equal(lastOwner.status, 409);
    assert.match(lastOwner.body.error.message, /only owner/);
    assert.equal((await role(admin, bobId, 'admin')).body.member.role, 'admin');
    assert.equal((await server.cairn.store.getMemberships(bobId)).organizations[0]!.role, 'admin');
    assert.equal((await role(admin, bobId, 'superuser')).status, 400);
    assert.equal((await role(admin, bobId, 'member')).status, 200);
  });

  test('admins make teams and add members; the member then sees the team', async () => {
    const team = await admin(`/api/v1/organizations/${orgId}/teams`, { method: 'POST', body: { name: 'Platform' } });
    assert.equal(team.status, 201);
    const bobId = (await server.cairn.store.findUserByEmail('bob@example.test'))!.id;
    assert.equal(
      (await admin(`/api/v1/teams/${team.body.team.id}/members`, { method: 'POST', body: { userId: bobId } })).status,
      204,
    );
    const teams = await admin(`/api/v1/organizations/${orgId}/teams`);
    assert.deepEqual(
      teams.body.teams[0].members.map((m: { email: string }) => m.email),
      ['bob@example.test'],
    );
    assert.equal(
      (await admin(`/api/v1/organizations/${orgId}/teams`, { method: 'POST', body: { name: 'platform' } })).status,
      409,
    );
  });

  test('admins rename teams, take people out of teams, list and cancel open invitations, and remove members', async () => {
    const bobId = (await server.cairn.store.findUserByEmail('bob@example.test'))!.id;
    const adaId = (await server.cairn.store.findUserByEmail('ada@example.test'))!.id;
    const bob = browser();
    assert.equal(
      (
        await bob('/api/auth/sign-in/email', {
          method: 'POST',
          body: { email: 'bob@example.test', password: 'correct horse battery' },
        })
      ).status,
      200,
    );
    const teamId = (await admin(`/api/v1/organizations/${orgId}/teams`)).body.teams[0].id;

    // Teams: rename (unique names), remove a member; members cannot.
    assert.equal((await bob(`/api/v1/teams/${teamId}`, { method: 'PATCH', body: { name: 'Mine' } })).status, 403);
    const renamed = await admin(`/api/v1/teams/${teamId}`, { method: 'PATCH', body: { name: 'Platform Engineering' } });
    assert.deepEqual(renamed.body.team, { id: teamId, name: 'Platform Engineering' });
    await admin(`/api/v1/organizations/${orgId}/teams`, { method: 'POST', body: { name: 'Data' } });
    assert.equal((await admin(`/api/v1/teams/${teamId}`, { method: 'PATCH', body: { name: 'data' } })).status, 409);
    assert.equal((await admin(`/api/v1/teams/${teamId}`, { method: 'PATCH', body: { name: '  ' } })).status, 400);
    assert.equal((await bob(`/api/v1/teams/${teamId}/members/${bobId}`, { method: 'DELETE' })).status, 403);
    assert.equal((await admin(`/api/v1/teams/${teamId}/members/${bobId}`, { method: 'DELETE' })).status, 204);
    assert.equal(
      (await admin(`/api/v1/teams/${teamId}/members/${bobId}`, { method: 'DELETE' })).status,
      404,
      'not in it any more',
    );
    assert.deepEqual((await server.cairn.store.getMemberships(bobId)).teams, []);
    assert.equal((await admin('/api/v1/teams/no-such-team', { method: 'PATCH', body: { name: 'x' } })).status, 404);

    // Invitations: listed without their links, cancelled once, and a cancelled link no longer works.
    const made = await admin(`/api/v1/organizations/${orgId}/invitations`, { method: 'POST', body: { role: 'admin' } });
    const token = new URL(made.body.inviteUrl).searchParams.get('invite')!;
    const open = await admin(`/api/v1/organizations/${orgId}/invitations`);
    assert.equal(open.body.invitations.length, 1, 'the used invitation is not listed');
    assert.deepEqual([open.body.invitations[0].role, open.body.invitations[0].createdBy], ['admin', adaId]);
    assert.ok(!JSON.stringify(open.body).includes(token), 'the link is never shown again');
    assert.equal((await bob(`/api/v1/organizations/${orgId}/invitations`)).status, 403);
    const inviteId = open.body.invitations[0].id;
    assert.equal(
      (await bob(`/api/v1/organizations/${orgId}/invitations/${inviteId}`, { method: 'DELETE' })).status,
      403,
    );
    assert.equal(
      (await admin(`/api/v1/organizations/${orgId}/invitations/${inviteId}`, { method: 'DELETE' })).status,
      204,
    );
    assert.equal(
      (await admin(`/api/v1/organizations/${orgId}/invitations/${inviteId}`, { method: 'DELETE' })).status,
      404,
    );
    const late = await browser()('/api/v1/signup', {
      method: 'POST',
      body: { email: 'mallory@example.test', password: 'correct horse battery', invite: token },
    });
    assert.equal(late.status, 400);

    // Members: removal takes the organization's datapacks out of reach of the removed person's key at once.
    const bobKey = (await bob('/api/v1/keys', { method: 'POST', body: { name: 'bob laptop' } })).body.key as string;
    const packsOf = async (key: string) =>
      (
        (await (
          await fetch(`${server.baseUrl}/api/v1/datapacks`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { datapacks: { scope: string }[] }
      ).datapacks.map((d) => d.scope);
    assert.ok((await packsOf(bobKey)).includes('organization'));
    const viaKey = await fetch(`${server.baseUrl}/api/v1/organizations/${orgId}/members/${adaId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${bobKey}` },
    });
    assert.equal(viaKey.status, 403, 'a key cannot change who is in the organization');
    assert.equal((await bob(`/api/v1/organizations/${orgId}/members/${adaId}`, { method: 'DELETE' })).status, 403);
    const lastOwner = await admin(`/api/v1/organizations/${orgId}/members/${adaId}`, { method: 'DELETE' });
    assert.equal(lastOwner.status, 409);
    assert.match(lastOwner.body.error.message, /only owner/);
    assert.equal((await admin(`/api/v1/organizations/${orgId}/members/${bobId}`, { method: 'DELETE' })).status, 204);
    assert.deepEqual(await packsOf(bobKey), ['personal'], 'only their own datapacks are left');
    assert.equal((await admin(`/api/v1/organizations/${orgId}/members/${bobId}`, { method: 'DELETE' })).status, 404);
    assert.deepEqual(
      (await admin(`/api/v1/organizations/${orgId}/members`)).body.members.map((m: { email: string }) => m.email),
      ['ada@example.test'],
    );
  });

  test('your account: a new name, and a new password that ends your other sessions; a key can do neither', async () => {
    const other = browser();
    assert.equal(
      (
        await other('/api/auth/sign-in/email', {
          method: 'POST',
          body: { email: 'ada@example.test', password: 'correct horse battery' },
        })
      ).status,
      200,
    );
    const renamed = await admin('/api/v1/me', { method: 'PATCH', body: { name: '  Ada Lovelace ' } });
    assert.equal(renamed.body.user.name, 'Ada Lovelace');
    assert.equal((await admin('/api/v1/me')).body.user.name, 'Ada Lovelace');
    for (const name of ['', 'Ada\u0000', 'x'.repeat(101)])
      assert.equal((await admin('/api/v1/me', { method: 'PATCH', body: { name } })).status, 400, JSON.stringify(name));
    const key = (await admin('/api/v1/keys', { method: 'POST', body: { name: 'account test' } })).body.key as string;
    const byKey = (path: string, method: string, body: unknown) =>
      fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal((await byKey('/api/v1/me', 'PATCH', { name: 'Mallory' })).status, 403);
    assert.equal(
      (
        await byKey('/api/v1/me/password', 'POST', {
          currentPassword: 'correct horse battery',
          newPassword: 'a brand new passphrase 77',
        })
      ).status,
      403,
    );

    const wrong = await admin('/api/v1/me/password', {
      method: 'POST',
      body: { currentPassword: 'not it at all', newPassword: 'a brand new passphrase 77' },
    });
    assert.equal(wrong.status, 403);
    assert.match(wrong.body.error.message, /current password is not right/);
    const weak = await admin('/api/v1/me/password', {
      method: 'POST',
      body: { currentPassword: 'correct horse battery', newPassword: 'password1' },
    });
    assert.equal(weak.status, 400);
    const changed = await admin('/api/v1/me/password', {
      method: 'POST',
      body: { currentPassword: 'correct horse battery', newPassword: 'a brand new passphrase 77' },
    });
    assert.equal(changed.status, 204);
    assert.equal((await admin('/api/v1/me')).status, 200, 'this session goes on');
    assert.equal((await other('/api/v1/me')).status, 401, 'the other session has ended');
    const signIn = (password: string) =>
      browser()('/api/auth/sign-in/email', { method: 'POST', body: { email: 'ada@example.test', password } });
    assert.notEqual((await signIn('correct horse battery')).status, 200);
    assert.equal((await signIn('a brand new passphrase 77')).status, 200);
    assert.equal((await byKey('/api/v1/datapacks', 'GET', undefined)).status, 200, 'API keys keep working');
  });

  test('API keys: generated once in a session, listed by start and last four, revoked; an API key cannot manage keys', async () => {
    const created = await admin('/api/v1/keys', { method: 'POST', body: { name: 'laptop' } });
    assert.equal(created.status, 201);
    const { key, record } = created.body;
    assert.match(key, /^cairn_tkn_/);
    const list = await admin('/api/v1/keys');
    assert.ok(!JSON.stringify(list.body).includes(key), 'the key is never shown again');
    assert.deepEqual([list.body.keys[0].start, list.body.keys[0].last4], [key.slice(0, 14), key.slice(-4)]);
    const viaKey = await fetch(`${server.baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"name":"escalate"}',
    });
    assert.equal(viaKey.status, 403);
    assert.equal((await admin(`/api/v1/keys/${record.id}`, { method: 'DELETE' })).status, 200);
    const after = await fetch(`${server.baseUrl}/api/v1/datapacks`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(after.status, 401, 'a revoked key stops working at once');
  });

  test('unknown API paths are JSON 404s; page paths get the portal (or a clear message when it is not built)', async () => {
    assert.equal((await fetch(`${server.baseUrl}/api/v1/nope`)).status, 401, 'signed out: authenticate first');
    const missing = await admin('/api/v1/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    assert.equal((await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).status, 404);
    const page = await fetch(`${server.baseUrl}/settings/api-keys`);
    assert.ok([200, 503].includes(page.status));
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  });
});

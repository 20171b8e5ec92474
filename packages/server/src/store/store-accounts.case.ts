import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setMemberRole } from '../auth/better-auth.js';
import { newId } from '../domain/deps.js';
import { contentHash } from '../domain/similarity.js';
import { createTenant, type TestTenant } from '../testing/tenants.js';
import type { TestCairn } from '../testing/test-cairn.js';
import type { KyselyStore } from './kysely-store.js';
import type { Datapack, Entry } from './types.js';

/**
 * The rest of the store contract, on every backend: people and roles, invitations, setup codes,
 * captured turns and the start-up lock. The single-winner methods are raced for real.
 */
export function runStoreAccountsConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store conformance, accounts and single-use records: ${backend}`, { skip }, () => {
    let server: TestCairn;
    let store: KyselyStore;
    let tenant: TestTenant;
    const at = (offsetMs: number) => new Date(Date.parse('2026-06-01T00:00:00.000Z') + offsetMs).toISOString();

    before(async () => {
      server = await start();
      store = server.cairn.store;
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('users are found by id and by email in any case; unknown ones are undefined', async () => {
      assert.deepEqual(await store.getUser(tenant.member.id), { id: tenant.member.id, email: tenant.member.email, name: 'member' });
      assert.equal((await store.findUserByEmail(tenant.member.email.toUpperCase()))?.id, tenant.member.id);
      assert.equal(await store.getUser('usr_nobody'), undefined);
      assert.equal(await store.findUserByEmail('nobody@example.test'), undefined);
    });

    test('organizations, their members with roles, and teams with their members', async () => {
      const orgs = await store.listOrganizations();
      assert.ok(orgs.some((o) => o.id === tenant.orgId && o.name === tenant.orgName));
      const members = await store.listOrgMembers(tenant.orgId);
      assert.deepEqual(
        members.map((m) => [m.email, m.role]).sort(),
        [
          [tenant.member.email, 'member'],
          [tenant.owner.email, 'owner'],
        ].sort(),
      );
      assert.ok(!members.some((m) => m.userId === tenant.outsider.id), 'the outsider belongs to another organization');
      const teams = await store.listTeams(tenant.orgId);
      assert.equal(teams.length, 1);
      assert.deepEqual(
        teams[0]!.members.map((m) => m.userId),
        [tenant.member.id],
      );
      assert.deepEqual(await store.listTeams('org_nothing'), []);
    });

    test("a member's role changes through better-auth and reads back from the store; a non-member is refused", async () => {
      const auth = server.cairn.auth;
      assert.equal(await setMemberRole(auth, { organizationId: tenant.orgId, userId: tenant.member.id, role: 'admin' }), true);
      assert.equal((await store.getMemberships(tenant.member.id)).organizations[0]!.role, 'admin');
      assert.equal((await store.listOrgMembers(tenant.orgId)).find((m) => m.userId === tenant.member.id)?.role, 'admin');
      assert.equal(await setMemberRole(auth, { organizationId: tenant.orgId, userId: tenant.member.id, role: 'member' }), true);
      assert.equal((await store.getMemberships(tenant.member.id)).organizations[0]!.role, 'member');
      assert.equal(await setMemberRole(auth, { organizationId: tenant.orgId, userId: tenant.outsider.id, role: 'admin' }), false);
      assert.equal((await store.getMemberships(tenant.outsider.id)).organizations[0]!.role, 'owner', 'their own organization is untouched');
    });

    test('an invitation is found until it expires or is used, and racing users get it once', async () => {
      const invite = { organizationId: tenant.orgId, role: 'member' as const, createdBy: tenant.owner.id, createdAt: at(0), expiresAt: at(60_000) };
      const token = randomUUID();
      await store.insertInvite(token, invite);
      assert.deepEqual(await store.findInvite(token, at(1000)), invite);
      assert.equal(await store.findInvite(token, at(60_001)), undefined, 'expired');
      assert.equal(await store.consumeInvite(token, tenant.outsider.id, at(60_001)), false, 'an expired invitation cannot be used');
      assert.equal(await store.findInvite('inv_unknown', at(1000)), undefined);
      const results = await Promise.all([tenant.outsider.id, tenant.member.id, tenant.owner.id, tenant.outsider.id, tenant.member.id].map((u) => store.consumeInvite(token, u, at(2000))));
      assert.equal(results.filter(Boolean).length, 1, `exactly one winner: ${results}`);
      assert.equal(await store.findInvite(token, at(3000)), undefined, 'used up');
    });

    test('a setup code is consumed once by five racing exchanges, never after it expires', async () => {
      const code = { codeHash: randomUUID(), userId: tenant.member.id, createdAt: at(0), expiresAt: at(600_000) };
      await store.insertSetupCode(code);
      const results = await Promise.all(Array.from({ length: 5 }, () => store.consumeSetupCode(code.codeHash, at(1000))));
      assert.deepEqual(
        results.filter((r) => r !== undefined),
        [tenant.member.id],
      );
      assert.equal(await store.consumeSetupCode(code.codeHash, at(2000)), undefined);
      const late = { ...code, codeHash: randomUUID() };
      await store.insertSetupCode(late);
      assert.equal(await store.consumeSetupCode(late.codeHash, at(600_001)), undefined, 'expired');
      assert.equal(await store.consumeSetupCode('unknown', at(1000)), undefined);
    });

    test('a captured turn is stored once per user and turn id, even when sent five times at once', async () => {
      const now = at(5000);
      const pack: Datapack = {
        id: newId('dpk'),
        scope: 'personal',
        ownerId: tenant.member.id,
        organizationId: null,
        name: `Turns ${randomUUID()}`,
        description: '',
        createdBy: tenant.member.id,
        createdAt: now,
        updatedAt: now,
      };
      await store.insertDatapack(pack);
      const turn = (content: string): Entry => ({
        id: newId('ent'),
        datapackId: pack.id,
        kind: 'conversation',
        title: '',
        content,
        tags: [],
        contentHash: contentHash('', content),
        version: 1,
        createdBy: tenant.member.id,
        createdClient: 'claude-code',
        createdAt: now,
        updatedBy: tenant.member.id,
        updatedClient: 'claude-code',
        updatedAt: now,
        deletedAt: null,
      });
      const sent = Array.from({ length: 5 }, () => turn('the same prompt'));
      const outcomes = await Promise.all(sent.map((e) => store.insertCapturedTurn(e, tenant.member.id, 'turn-1', { role: 'user', sessionId: 's1' })));
      const results = outcomes.map((o) => o.stored);
      assert.equal(results.filter(Boolean).length, 1, `exactly one stored: ${results}`);
      const stored = await store.listEntries(pack.id, { limit: 10, offset: 0 });
      assert.equal(stored.length, 1);
      assert.equal(sent[results.indexOf(true)]!.id, stored[0]!.id, 'the winner is the stored entry');
      assert.ok(
        outcomes.every((o) => o.entryId === stored[0]!.id),
        'every sender learns the stored entry',
      );
      assert.equal((await store.listEntryVersions(stored[0]!.id)).length, 1, 'one history row, none left by the losers');
      assert.equal(await (await store.insertCapturedTurn(turn('another user'), tenant.owner.id, 'turn-1', { role: 'user' })).stored, true, 'turn ids are per user');
      assert.equal((await store.insertCapturedTurn(turn('next'), tenant.member.id, 'turn-2', { role: 'assistant', sessionId: 's1', speaker: 'Ada' })).stored, true);
    });

    test('the start-up lock runs start-up work one caller at a time', async () => {
      let inside = 0;
      let most = 0;
      const work = async () => {
        inside += 1;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 30));
        inside -= 1;
        return 'done';
      };
      // On SQLite one process owns the file, so the lock is the caller itself: the work still runs and returns.
      const results = await Promise.all([store.withStartupLock(work), store.withStartupLock(work), store.withStartupLock(work)]);
      assert.deepEqual(results, ['done', 'done', 'done']);
      if (store.dialect === 'postgres') assert.equal(most, 1, 'PostgreSQL: one holder of the advisory lock at a time');
      await assert.rejects(
        () =>
          store.withStartupLock(async () => {
            throw new Error('boom');
          }),
        /boom/,
      );
      assert.equal(await store.withStartupLock(async () => 'free again'), 'free again', 'a failure releases the lock');
    });
  });
}

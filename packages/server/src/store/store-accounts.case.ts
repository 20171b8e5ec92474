import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { setMemberRole } from '../auth/better-auth.js';
import { createDomainDeps, newId } from '../domain/deps.js';
import { contentHash } from '../domain/similarity.js';
import type { TestCairn } from '../testing/test-cairn.js';
import { useCaseStore } from './store-records.fixture.js';
import type { ApiKeyRecord, Datapack, Entry } from './types.js';

/**
 * The rest of the store contract, on every backend: people and roles, invitations, setup codes,
 * API keys, OAuth grants' use, client names, captured turns and the start-up lock. The single-winner methods are raced for real.
 */
export function runStoreAccountsConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store conformance, accounts and single-use records: ${backend}`, { skip }, () => {
    const { server, store, tenant, tick } = useCaseStore(start);
    const at = (offsetMs: number) => new Date(Date.parse('2026-06-01T00:00:00.000Z') + offsetMs).toISOString();

    test('users are found by id and by email in any case; unknown ones are undefined', async () => {
      assert.deepEqual(await store().getUser(tenant().member.id), {
        id: tenant().member.id,
        email: tenant().member.email,
        name: 'member',
      });
      assert.equal((await store().findUserByEmail(tenant().member.email.toUpperCase()))?.id, tenant().member.id);
      assert.equal(await store().getUser('usr_nobody'), undefined);
      assert.equal(await store().findUserByEmail('nobody@example.test'), undefined);
    });

    test('organizations, their members with roles, and teams with their members', async () => {
      const orgs = await store().listOrganizations();
      assert.ok(orgs.some((o) => o.id === tenant().orgId && o.name === tenant().orgName));
      const members = await store().listOrgMembers(tenant().orgId);
      assert.deepEqual(
        members.map((m) => [m.email, m.role]).sort(),
        [
          [tenant().member.email, 'member'],
          [tenant().owner.email, 'owner'],
        ].sort(),
      );
      assert.ok(
        !members.some((m) => m.userId === tenant().outsider.id),
        'the outsider belongs to another organization',
      );
      const teams = await store().listTeams(tenant().orgId);
      assert.equal(teams.length, 1);
      assert.deepEqual(
        teams[0]!.members.map((m) => m.userId),
        [tenant().member.id],
      );
      assert.deepEqual(await store().listTeams('org_nothing'), []);
    });

    test("a member's role changes through better-auth and reads back from the store; a non-member is refused", async () => {
      const auth = server().cairn.auth;
      assert.equal(
        await setMemberRole(auth, { organizationId: tenant().orgId, userId: tenant().member.id, role: 'admin' }),
        true,
      );
      assert.equal((await store().getMemberships(tenant().member.id)).organizations[0]!.role, 'admin');
      assert.equal(
        (await store().listOrgMembers(tenant().orgId)).find((m) => m.userId === tenant().member.id)?.role,
        'admin',
      );
      assert.equal(
        await setMemberRole(auth, { organizationId: tenant().orgId, userId: tenant().member.id, role: 'member' }),
        true,
      );
      assert.equal((await store().getMemberships(tenant().member.id)).organizations[0]!.role, 'member');
      assert.equal(
        await setMemberRole(auth, { organizationId: tenant().orgId, userId: tenant().outsider.id, role: 'admin' }),
        false,
      );
      assert.equal(
        (await store().getMemberships(tenant().outsider.id)).organizations[0]!.role,
        'owner',
        'their own organization is untouched',
      );
    });

    test('an invitation is found until it expires or is used, and racing users get it once', async () => {
      const invite = {
        organizationId: tenant().orgId,
        role: 'member' as const,
        createdBy: tenant().owner.id,
        createdAt: at(0),
        expiresAt: at(60_000),
      };
      const token = randomUUID();
      await store().insertInvite(token, invite);
      assert.deepEqual(await store().findInvite(token, at(1000)), invite);
      assert.equal(await store().findInvite(token, at(60_001)), undefined, 'expired');
      assert.equal(
        await store().consumeInvite(token, tenant().outsider.id, at(60_001)),
        false,
        'an expired invitation cannot be used',
      );
      assert.equal(await store().findInvite('inv_unknown', at(1000)), undefined);
      const results = await Promise.all(
        [tenant().outsider.id, tenant().member.id, tenant().owner.id, tenant().outsider.id, tenant().member.id].map(
          (u) => store().consumeInvite(token, u, at(2000)),
        ),
      );
      assert.equal(results.filter(Boolean).length, 1, `exactly one winner: ${results}`);
      assert.equal(await store().findInvite(token, at(3000)), undefined, 'used up');
    });

    test('a setup code is consumed once by five racing exchanges, never after it expires', async () => {
      const code = { codeHash: randomUUID(), userId: tenant().member.id, createdAt: at(0), expiresAt: at(600_000) };
      await store().insertSetupCode(code);
      const results = await Promise.all(
        Array.from({ length: 5 }, () => store().consumeSetupCode(code.codeHash, at(1000))),
      );
      assert.deepEqual(
        results.filter((r) => r !== undefined),
        [tenant().member.id],
      );
      assert.equal(await store().consumeSetupCode(code.codeHash, at(2000)), undefined);
      const late = { ...code, codeHash: randomUUID() };
      await store().insertSetupCode(late);
      assert.equal(await store().consumeSetupCode(late.codeHash, at(600_001)), undefined, 'expired');
      assert.equal(await store().consumeSetupCode('unknown', at(1000)), undefined);
    });

    test('a setup code traded with its key: stored together, and a key that cannot be stored leaves the code usable', async () => {
      const code = { codeHash: randomUUID(), userId: tenant().member.id, createdAt: at(0), expiresAt: at(600_000) };
      await store().insertSetupCode(code);
      const id = newId('key');
      const key = (userId: string) => ({
        record: {
          id,
          userId,
          name: 'traded',
          start: 'cairn_tkn_abcd',
          last4: 'wxyz',
          scope: 'read-write' as const,
          createdAt: at(1),
          expiresAt: null,
          revokedAt: null,
          lastUsedAt: null,
          lastUsedClient: null,
        },
        keyHash: `hash-${id}`,
      });
      assert.equal(await store().consumeSetupCode(code.codeHash, at(1000), key), tenant().member.id);
      assert.equal((await store().getApiKey(id))?.userId, tenant().member.id, "the key is stored for the code's user");
      const second = { ...code, codeHash: randomUUID() };
      await store().insertSetupCode(second);
      // The same key id again: the insert fails, and so does the whole exchange.
      await assert.rejects(store().consumeSetupCode(second.codeHash, at(1000), key));
      assert.equal(await store().consumeSetupCode(second.codeHash, at(2000)), tenant().member.id, 'still usable');
    });

    test('a captured turn is stored once per user and turn id, even when sent five times at once', async () => {
      const now = at(5000);
      const pack: Datapack = {
        id: newId('dpk'),
        scope: 'personal',
        ownerId: tenant().member.id,
        organizationId: null,
        name: `Turns ${randomUUID()}`,
        description: '',
        createdBy: tenant().member.id,
        createdAt: now,
        updatedAt: now,
      };
      await store().insertDatapack(pack);
      const turn = (content: string): Entry => ({
        id: newId('ent'),
        datapackId: pack.id,
        kind: 'conversation',
        title: '',
        content,
        tags: [],
        contentHash: contentHash('', content),
        version: 1,
        createdBy: tenant().member.id,
        createdClient: 'claude-code',
        createdAt: now,
        updatedBy: tenant().member.id,
        updatedClient: 'claude-code',
        updatedAt: now,
        deletedAt: null,
      });
      const sent = Array.from({ length: 5 }, () => turn('the same prompt'));
      const outcomes = await Promise.all(
        sent.map((e) => store().insertCapturedTurn(e, tenant().member.id, 'turn-1', { role: 'user', sessionId: 's1' })),
      );
      const results = outcomes.map((o) => o.stored);
      assert.equal(results.filter(Boolean).length, 1, `exactly one stored: ${results}`);
      const stored = await store().listEntries(pack.id, { limit: 10, offset: 0 });
      assert.equal(stored.length, 1);
      assert.equal(sent[results.indexOf(true)]!.id, stored[0]!.id, 'the winner is the stored entry');
      assert.ok(
        outcomes.every((o) => o.entryId === stored[0]!.id),
        'every sender learns the stored entry',
      );
      assert.equal(
        (await store().listEntryVersions(stored[0]!.id)).length,
        1,
        'one history row, none left by the losers',
      );
      assert.equal(
        await (await store().insertCapturedTurn(turn('another user'), tenant().owner.id, 'turn-1', { role: 'user' }))
          .stored,
        true,
        'turn ids are per user',
      );
      assert.equal(
        (
          await store().insertCapturedTurn(turn('next'), tenant().member.id, 'turn-2', {
            role: 'assistant',
            sessionId: 's1',
            speaker: 'Ada',
          })
        ).stored,
        true,
      );
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
      const results = await Promise.all([
        store().withStartupLock(work),
        store().withStartupLock(work),
        store().withStartupLock(work),
      ]);
      assert.deepEqual(results, ['done', 'done', 'done']);
      if (store().dialect === 'postgres')
        assert.equal(most, 1, 'PostgreSQL: one holder of the advisory lock at a time');
      await assert.rejects(
        () =>
          store().withStartupLock(async () => {
            throw new Error('boom');
          }),
        /boom/,
      );
      assert.equal(
        await store().withStartupLock(async () => 'free again'),
        'free again',
        'a failure releases the lock',
      );
    });

    test('OAuth grant usage: the latest use per user and app, never moved backwards', async () => {
      const u = tenant().member.id;
      await store().recordOAuthUse([
        { userId: u, clientId: 'app-1', at: '2026-03-01T10:00:00.000Z', client: 'Claude Code 2.1' },
      ]);
      await store().recordOAuthUse([{ userId: u, clientId: 'app-1', at: '2026-03-01T09:00:00.000Z', client: 'older' }]);
      await store().recordOAuthUse([{ userId: u, clientId: 'app-2', at: '2026-03-02T10:00:00.000Z', client: null }]);
      const uses = (await store().listOAuthUse(u)).sort((a, b) => a.clientId.localeCompare(b.clientId));
      assert.deepEqual(uses, [
        { userId: u, clientId: 'app-1', at: '2026-03-01T10:00:00.000Z', client: 'Claude Code 2.1' },
        { userId: u, clientId: 'app-2', at: '2026-03-02T10:00:00.000Z', client: null },
      ]);
      assert.deepEqual(await store().listOAuthUse(tenant().outsider.id), []);
    });

    test('client names: kept per key and per OAuth grant, replaced by the next, untouched by usage; a grant not yet used gets its row', async () => {
      const deps = createDomainDeps(store());
      const key: ApiKeyRecord = {
        id: deps.newId('key'),
        userId: tenant().member.id,
        name: 'named',
        start: 'cairn_tkn_abcd',
        last4: 'wxyz',
        scope: 'read-write',
        createdAt: tick(),
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
        lastUsedClient: null,
      };
      await store().insertApiKey(key, `hash-${key.id}`);
      assert.equal(await store().clientNameOf({ keyId: key.id }), undefined);
      await store().rememberClientName({ keyId: key.id }, 'Cursor 1.7.2', tick());
      await store().rememberClientName({ keyId: key.id }, 'Claude Code 2.1.330', tick());
      await store().recordKeyUsage([{ id: key.id, at: tick(), client: 'cairn-mcp-installer/1.0' }]);
      assert.equal(
        await store().clientNameOf({ keyId: key.id }),
        'Claude Code 2.1.330',
        'a use that named no client leaves the name alone',
      );
      assert.equal(await store().clientNameOf({ keyId: 'key_unknown' }), undefined);

      const grant = { userId: tenant().member.id, oauthClientId: 'app-named' };
      await store().rememberClientName(grant, 'Codex 0.169.0', '2026-03-03T10:00:00.000Z');
      assert.equal(await store().clientNameOf(grant), 'Codex 0.169.0');
      assert.ok(
        (await store().listOAuthUse(tenant().member.id)).some(
          (u) => u.clientId === 'app-named' && u.client === 'Codex 0.169.0',
        ),
        'a first sight of the grant counts as its use',
      );
      await store().recordOAuthUse([
        {
          userId: tenant().member.id,
          clientId: 'app-named',
          at: '2026-03-04T10:00:00.000Z',
          client: 'codex_exec/0.169',
        },
      ]);
      await store().rememberClientName(grant, 'Codex 0.170.0', '2026-03-04T11:00:00.000Z');
      assert.equal(await store().clientNameOf(grant), 'Codex 0.170.0');
      assert.equal(
        await store().clientNameOf({ userId: tenant().outsider.id, oauthClientId: 'app-named' }),
        undefined,
        'per user',
      );
    });

    test('API keys: lookup by hash, newest first, revoke once, usage only moves forward', async () => {
      const deps = createDomainDeps(store());
      const base = {
        userId: tenant().owner.id,
        start: 'cairn_tkn_abcd',
        last4: 'wxyz',
        revokedAt: null,
        lastUsedAt: null,
        lastUsedClient: null,
      };
      const older: ApiKeyRecord = {
        ...base,
        id: deps.newId('key'),
        name: 'older',
        scope: 'read-write',
        createdAt: tick(),
        expiresAt: null,
      };
      const newer: ApiKeyRecord = {
        ...base,
        id: deps.newId('key'),
        name: 'newer',
        scope: 'read',
        createdAt: tick(),
        expiresAt: '2026-04-01T12:30:45.678Z',
      };
      await store().insertApiKey(older, `hash-${older.id}`);
      await store().insertApiKey(newer, `hash-${newer.id}`);
      assert.deepEqual(await store().findApiKeyByHash(`hash-${older.id}`), older);
      assert.deepEqual(
        await store().findApiKeyByHash(`hash-${newer.id}`),
        newer,
        'scope and expiry round-trip to the millisecond',
      );
      assert.deepEqual(await store().getApiKey(newer.id), newer);
      assert.equal(await store().findApiKeyByHash('nope'), undefined);
      const names = (await store().listApiKeys(tenant().owner.id)).map((k) => k.name);
      assert.ok(names.indexOf('newer') < names.indexOf('older'));
      const at = tick();
      assert.equal(await store().revokeApiKey(older.id, at), true);
      assert.equal(await store().revokeApiKey(older.id, tick()), false);
      assert.equal((await store().getApiKey(older.id))?.revokedAt, at);
      const late = tick();
      await store().recordKeyUsage([{ id: newer.id, at: late, client: 'later-client' }]);
      await store().recordKeyUsage([{ id: newer.id, at: '2020-01-01T00:00:00.000Z', client: 'stale-client' }]);
      const used = (await store().getApiKey(newer.id))!;
      assert.deepEqual([used.lastUsedAt, used.lastUsedClient], [late, 'later-client']);
      assert.deepEqual([used.scope, used.expiresAt], ['read', newer.expiresAt], 'usage leaves scope and expiry alone');
    });

    test('API keys made before scopes existed read back as read-write without expiry; an unknown scope is refused', async () => {
      const id = newId('key');
      // The columns the first migration made, and nothing else: what a row written by an older Cairn holds.
      await sql`INSERT INTO api_key (id, user_id, name, start, last4, key_hash, created_at)
        VALUES (${id}, ${tenant().owner.id}, 'legacy', 'cairn_tkn_lega', 'acy1', ${`hash-${id}`}, ${tick()})`.execute(
        store().db,
      );
      const legacy = (await store().getApiKey(id))!;
      assert.deepEqual([legacy.scope, legacy.expiresAt], ['read-write', null]);
      const bad = newId('key');
      await assert.rejects(
        sql`INSERT INTO api_key (id, user_id, name, start, last4, key_hash, created_at, scope)
          VALUES (${bad}, ${tenant().owner.id}, 'bad', 'cairn_tkn_badd', 'bad1', ${`hash-${bad}`}, ${tick()}, 'admin')`.execute(
          store().db,
        ),
      );
      assert.equal(await store().getApiKey(bad), undefined);
    });
  });
}

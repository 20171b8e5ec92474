import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../domain/deps.js';
import type { TestCairn } from '../testing/test-cairn.js';
import type { AuditEvent } from './audit-types.js';
import type { KyselyStore } from './kysely-store.js';
import { useCaseStore } from './store-records.fixture.js';

/** The audit trail's storage contract on every backend: append, filtered newest-first pages, purge. */
export function runStoreAuditConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store conformance, audit trail: ${backend}`, { skip }, () => {
    const { store } = useCaseStore(start);
    // Each test gets its own organization id, so tests never see each other's events.
    const org = () => `org_${newId('aud').slice(4)}`;
    const event = (over: Partial<AuditEvent>): AuditEvent => ({
      id: newId('aud'),
      at: '2026-03-01T10:00:00.000Z',
      kind: 'entry.updated',
      actorUserId: 'usr_a',
      actorEmail: 'a@example.test',
      organizationId: null,
      credential: { type: 'api_key', id: 'key_1', name: 'laptop' },
      client: 'Cursor 1.7',
      target: { type: 'entry', id: 'ent_1', name: 'Policies › No force pushes' },
      outcome: 'success',
      ...over,
    });

    test('an appended event reads back field for field, including empty credential and target', async () => {
      const o = org();
      const full = event({ organizationId: o, at: '2026-03-01T10:00:01.000Z' });
      const bare = event({
        organizationId: o,
        at: '2026-03-01T10:00:02.000Z',
        kind: 'auth.sign_in_failed',
        actorUserId: null,
        credential: null,
        client: null,
        target: null,
        outcome: 'failure',
      });
      await store().appendAuditEvents([full, bare]);
      assert.deepEqual(await store().listAuditEvents({ organizationId: o, limit: 10 }), [bare, full]);
      await store().appendAuditEvents([]);
    });

    test('filters: organization, actor, exact kind, kind family, target, since (inclusive) and until (exclusive)', async () => {
      const o = org();
      const e1 = event({
        organizationId: o,
        at: '2026-03-02T00:00:00.000Z',
        kind: 'entry.created',
        actorUserId: 'usr_x',
      });
      const e2 = event({
        organizationId: o,
        at: '2026-03-03T00:00:00.000Z',
        kind: 'entry.deleted',
        actorUserId: 'usr_y',
        target: { type: 'entry', id: 'ent_2', name: null },
      });
      const e3 = event({
        organizationId: o,
        at: '2026-03-04T00:00:00.000Z',
        kind: 'entryx.created',
        actorUserId: 'usr_x',
      });
      const other = event({ organizationId: org(), at: '2026-03-03T00:00:00.000Z', actorUserId: 'usr_x' });
      await store().appendAuditEvents([e1, e2, e3, other]);
      const ids = async (q: Parameters<KyselyStore['listAuditEvents']>[0]) =>
        (await store().listAuditEvents(q)).map((e) => e.id);
      assert.deepEqual(await ids({ organizationId: o, limit: 10 }), [e3.id, e2.id, e1.id]);
      assert.deepEqual(await ids({ organizationId: o, actorUserId: 'usr_x', limit: 10 }), [e3.id, e1.id]);
      assert.deepEqual(await ids({ organizationId: o, kind: 'entry.deleted', limit: 10 }), [e2.id]);
      assert.deepEqual(
        await ids({ organizationId: o, kind: 'entry', limit: 10 }),
        [e2.id, e1.id],
        'a family matches entry.* and not entryx.*',
      );
      assert.deepEqual(await ids({ organizationId: o, targetId: 'ent_2', limit: 10 }), [e2.id]);
      assert.deepEqual(
        await ids({
          organizationId: o,
          since: '2026-03-03T00:00:00.000Z',
          until: '2026-03-04T00:00:00.000Z',
          limit: 10,
        }),
        [e2.id],
      );
      assert.deepEqual(await ids({ organizationId: o, limit: 2 }), [e3.id, e2.id]);
    });

    test('pages continue after the last event seen, even among events of the same instant', async () => {
      const o = org();
      const same = Array.from({ length: 5 }, () => event({ organizationId: o, at: '2026-03-05T00:00:00.000Z' }));
      const older = event({ organizationId: o, at: '2026-03-04T23:59:59.999Z' });
      await store().appendAuditEvents([...same, older]);
      const seen: string[] = [];
      let after: { at: string; id: string } | undefined;
      for (;;) {
        const page = await store().listAuditEvents({ organizationId: o, limit: 2, ...(after && { after }) });
        if (page.length === 0) break;
        seen.push(...page.map((e) => e.id));
        const last = page.at(-1)!;
        after = { at: last.at, id: last.id };
      }
      const expected = [
        ...same
          .map((e) => e.id)
          .sort()
          .reverse(),
        older.id,
      ];
      assert.deepEqual(seen, expected);
    });

    test('the purge deletes events older than the cutoff, a batch at a time, and nothing newer', async () => {
      const o = org();
      const old = Array.from({ length: 3 }, (_, i) =>
        event({ organizationId: o, at: `2000-01-0${i + 1}T00:00:00.000Z` }),
      );
      const kept = event({ organizationId: o, at: '2026-03-06T00:00:00.000Z' });
      await store().appendAuditEvents([...old, kept]);
      assert.equal(await store().purgeAuditEvents('2001-01-01T00:00:00.000Z', 2), 2);
      assert.equal(await store().purgeAuditEvents('2001-01-01T00:00:00.000Z', 2), 1);
      assert.equal(await store().purgeAuditEvents('2001-01-01T00:00:00.000Z', 2), 0);
      assert.deepEqual(
        (await store().listAuditEvents({ organizationId: o, limit: 10 })).map((e) => e.id),
        [kept.id],
      );
    });
  });
}

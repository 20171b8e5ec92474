import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../domain/deps.js';
import { CairnError } from '../errors/cairn-error.js';
import type { TestCairn } from '../testing/test-cairn.js';
import { useCaseStore } from './store-records.fixture.js';
import type { EntryRecord } from './transfer-types.js';
import type { Datapack } from './types.js';

/** The export and import queries, on every backend: what goes in comes out whole, and a failed write leaves nothing. */
export function runStoreTransferConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store export/import conformance: ${backend}`, { skip }, () => {
    const { store, tenant } = useCaseStore(start);

    const pack = (over: Partial<Datapack> = {}): Datapack => ({
      id: newId('dpk'),
      scope: 'personal',
      ownerId: tenant().member.id,
      organizationId: null,
      name: `imported ${newId('dpk')}`,
      description: 'from another Cairn',
      createdBy: tenant().member.id,
      createdAt: '2025-05-01T10:00:00.000Z',
      updatedAt: '2025-05-02T10:00:00.000Z',
      ...over,
    });
    const record = (datapackId: string, id = newId('ent'), version = 2): EntryRecord => {
      const at = (n: number) => `2025-06-0${n}T12:00:00.123Z`;
      const versions = Array.from({ length: version }, (_, i) => ({
        entryId: id,
        version: i + 1,
        change: (i === 0 ? 'create' : 'update') as 'create' | 'update',
        restoredFrom: null,
        kind: 'decision',
        title: `Title v${i + 1}`,
        content: `Content v${i + 1} “quoted”`,
        tags: ['a', `v${i + 1}`],
        changedBy: tenant().member.id,
        changedClient: 'cursor/1.7',
        changedAt: at(i + 1),
      }));
      const last = versions.at(-1)!;
      return {
        entry: {
          id,
          datapackId,
          kind: last.kind,
          title: last.title,
          content: last.content,
          tags: last.tags,
          contentHash: `hash-${id}`,
          version,
          createdBy: tenant().member.id,
          createdClient: 'cursor/1.7',
          createdAt: at(1),
          updatedBy: tenant().member.id,
          updatedClient: 'cursor/1.7',
          updatedAt: last.changedAt,
          deletedAt: null,
        },
        versions,
      };
    };

    test('an imported datapack, entries, history and turn come back out exactly; a trashed datapack keeps its deleted state', async () => {
      const d = pack({ deletedAt: '2025-07-01T00:00:00.000Z', deletedBy: tenant().member.id });
      const withTurn: EntryRecord = {
        ...record(d.id),
        turn: {
          userId: tenant().member.id,
          turnId: `t-${d.id}`,
          createdAt: '2025-06-01T12:00:00.123Z',
          sessionId: 's1',
          speaker: 'Ann',
          role: 'user',
        },
      };
      const plain = record(d.id, undefined, 1);
      await store().importDatapack({ datapack: d, mode: 'create', inserts: [withTurn, plain], updates: [] });
      assert.deepEqual(await store().getAnyDatapack(d.id), d);
      assert.equal(await store().getDatapack(d.id), undefined, 'in the trash, so no read path sees it');
      assert.ok(
        (await store().exportDatapacks({ owners: [{ scope: 'personal', ownerId: tenant().member.id }] })).some(
          (x) => x.id === d.id,
        ),
      );
      const out = await store().exportEntries(d.id, '', 10);
      assert.deepEqual(
        out,
        [withTurn, plain].sort((a, b) => (a.entry.id < b.entry.id ? -1 : 1)),
      );
      const page = await store().exportEntries(d.id, out[0]!.entry.id, 10);
      assert.deepEqual(
        page.map((r) => r.entry.id),
        [out[1]!.entry.id],
        'pages continue after the last id',
      );
      assert.deepEqual(
        await store().exportEntries(d.id, '', 10, tenant().owner.id),
        [],
        'createdBy narrows to that author',
      );
      const states = await store().entryStates([withTurn.entry.id, 'ent_missing']);
      assert.deepEqual([...states], [[withTurn.entry.id, { datapackId: d.id, version: 2 }]]);
    });

    test('newer versions are appended to a stored entry; if it moved meanwhile, the whole datapack write is undone', async () => {
      const d = pack();
      const first = record(d.id, undefined, 1);
      await store().importDatapack({ datapack: d, mode: 'create', inserts: [first], updates: [] });
      const newer = record(d.id, first.entry.id, 3);
      await store().importDatapack({
        datapack: d,
        mode: 'keep',
        inserts: [],
        updates: [{ record: newer, storedVersion: 1 }],
      });
      assert.deepEqual(await store().exportEntries(d.id, '', 10), [newer]);

      const other = pack();
      const fresh = record(other.id);
      const stale = { record: record(d.id, first.entry.id, 4), storedVersion: 1 };
      await assert.rejects(
        store().importDatapack({ datapack: other, mode: 'create', inserts: [fresh], updates: [stale] }),
        (e: unknown) => e instanceof CairnError && e.code === 'version_conflict',
      );
      assert.equal(await store().getAnyDatapack(other.id), undefined, 'the new datapack was rolled back');
      assert.equal(await store().getEntry(fresh.entry.id), undefined, 'and so was the new entry');
      assert.equal((await store().getEntry(first.entry.id))?.version, 3);
    });
  });
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../domain/deps.js';
import { CairnError } from '../errors/cairn-error.js';
import type { TestCairn } from '../testing/test-cairn.js';
import { useCaseStore } from './store-records.fixture.js';

/**
 * The one conformance suite every store backend runs against a real database (its search, accounts,
 * audit and transfer parts are the other store*.case.ts): migrations, settings, datapacks, entries
 * and their history, embeddings. `start` gives a fresh Cairn on the backend; `skip` (with its
 * reason) is printed, never silent.
 */
export function runStoreConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store conformance: ${backend}`, { skip }, () => {
    const { store, tenant, tick, datapack, entry } = useCaseStore(start);

    test('migrations are idempotent: running them again applies nothing and keeps the data', async () => {
      const d = await datapack();
      const kept = entry(d.id);
      await store().insertEntry(kept);
      const applied = async () =>
        (await sql<{ name: string }>`SELECT name FROM cairn_migration ORDER BY name`.execute(store().db)).rows.map(
          (r) => r.name,
        );
      const before = await applied();
      assert.ok(before.length >= 5, `migrations are recorded: ${before}`);
      await store().migrate();
      await store().migrate();
      assert.deepEqual(await applied(), before);
      assert.deepEqual(await store().getEntry(kept.id), kept);
    });

    test('a setting keeps the first value stored', async () => {
      const name = `s_${newId('key')}`;
      assert.equal(await store().getOrInitSetting(name, 'first'), 'first');
      assert.equal(await store().getOrInitSetting(name, 'second'), 'first');
    });

    test('users and memberships come from the auth tables', async () => {
      assert.equal((await store().findUserByEmail(tenant().owner.email.toUpperCase()))?.id, tenant().owner.id);
      assert.ok((await store().countUsers()) >= 3);
      const m = await store().getMemberships(tenant().member.id);
      assert.deepEqual(
        m.organizations.map((o) => [o.id, o.role]),
        [[tenant().orgId, 'member']],
      );
      assert.deepEqual(
        m.teams.map((t) => t.id),
        [tenant().teamId],
      );
      assert.equal((await store().getMemberships(tenant().owner.id)).organizations[0]!.role, 'owner');
    });

    test('datapack names are unique per owner, ignoring case', async () => {
      const d = await datapack('Recipes');
      assert.deepEqual(await store().getDatapack(d.id), d);
      await assert.rejects(
        () => datapack('RECIPES'),
        (e: unknown) => e instanceof CairnError && e.code === 'conflict',
      );
    });

    test('listing counts live entries and reports the last change', async () => {
      const d = await datapack();
      const a = entry(d.id);
      await store().insertEntry(a);
      await store().insertEntry(entry(d.id, { title: 'Second', content: 'two' }));
      const gone = { ...a, version: 2, deletedAt: tick(), updatedAt: tick() };
      assert.equal(await store().replaceEntry(gone, 1, 'delete'), true);
      const listed = (await store().listDatapacks([{ scope: 'personal', ownerId: tenant().member.id }])).find(
        (p) => p.id === d.id,
      )!;
      assert.equal(listed.entryCount, 1);
      assert.ok(listed.lastChangedAt > d.updatedAt);
      assert.deepEqual(await store().listDatapacks([]), []);
    });

    test('entries round-trip with tags and provenance', async () => {
      const d = await datapack();
      const e = entry(d.id, { tags: ['a', 'b c'], createdClient: null, kind: 'policy' });
      await store().insertEntry(e);
      assert.deepEqual(await store().getEntry(e.id), e);
      assert.deepEqual(
        (await store().listEntries(d.id, { limit: 10, offset: 0 })).map((x) => x.id),
        [e.id],
      );
      assert.equal((await store().findEntryByContentHash(d.id, e.contentHash))?.id, e.id);
    });

    test('replaceEntry is a compare-and-set on the version and keeps history', async () => {
      const d = await datapack();
      const e = entry(d.id);
      await store().insertEntry(e);
      const v2 = { ...e, title: 'Second title', version: 2, updatedAt: tick() };
      assert.equal(await store().replaceEntry(v2, 1, 'update'), true);
      assert.equal(
        await store().replaceEntry({ ...v2, title: 'lost', version: 3 }, 1, 'update'),
        false,
        'stale version',
      );
      assert.equal((await store().getEntry(e.id))?.title, 'Second title');
      const v3 = { ...v2, version: 3, deletedAt: tick(), updatedAt: tick() };
      assert.equal(await store().replaceEntry(v3, 2, 'delete'), true);
      assert.equal(
        await store().replaceEntry({ ...v3, version: 4 }, 3, 'update'),
        false,
        'deleted entries stay deleted',
      );
      const history = await store().listEntryVersions(e.id);
      assert.deepEqual(
        history.map((h) => [h.version, h.change, h.title]),
        [
          [1, 'create', 'A title'],
          [2, 'update', 'Second title'],
          [3, 'delete', 'Second title'],
        ],
      );
      assert.equal(await store().findEntryByContentHash(d.id, e.contentHash), undefined);
      assert.deepEqual(await store().listEntries(d.id, { limit: 10, offset: 0 }), []);
    });

    test('a failed change writes nothing (the entry and its history move together)', async () => {
      const d = await datapack();
      const e = entry(d.id);
      await store().insertEntry(e);
      await sql`INSERT INTO entry_version (entry_id, version, change, kind, title, content, tags, changed_by, changed_client, changed_at)
        VALUES (${e.id}, 2, 'update', 'note', 'planted', 'x', '[]', 'u', NULL, ${tick()})`.execute(store().db);
      await assert.rejects(() =>
        store().replaceEntry({ ...e, title: 'Half-written', version: 2, updatedAt: tick() }, 1, 'update'),
      );
      const now = await store().getEntry(e.id);
      assert.equal(now?.version, 1);
      assert.equal(now?.title, 'A title');
      await assert.rejects(() => store().insertEntry(e), 'the same id twice');
      assert.equal((await store().listEntryVersions(e.id)).filter((v) => v.change === 'create').length, 1);
    });

    test('embeddings: stored per entry version and model; a new version, another model or a new entry is to embed again', async () => {
      const d = await datapack();
      const a = entry(d.id, { title: 'Embed me', content: 'first' });
      const b = entry(d.id, { title: 'Embed me too', content: 'second' });
      const gone = entry(d.id, { title: 'Deleted', content: 'never embedded', deletedAt: tick() });
      for (const e of [a, b, gone]) await store().insertEntry(e);
      const todo = async (model: string) => new Set((await store().entriesToEmbed(model, 10_000)).map((e) => e.id));
      assert.ok((await todo('m1')).has(a.id) && (await todo('m1')).has(b.id));
      assert.ok(!(await todo('m1')).has(gone.id), 'deleted entries are not embedded');
      const vector = Float32Array.from([0.6, 0.8, 0]);
      await store().saveEmbeddings('m1', [
        { entryId: a.id, version: 1, vector },
        { entryId: b.id, version: 1, vector },
      ]);
      assert.ok(!(await todo('m1')).has(a.id));
      const loaded = await store().loadEmbeddings('m1', [a.id, b.id, gone.id]);
      assert.deepEqual([...loaded.get(a.id)!.vector], [...vector]);
      assert.equal(loaded.size, 2);
      assert.ok((await todo('m2')).has(a.id), 'another model embeds everything again');
      assert.equal((await store().loadEmbeddings('m2', [a.id])).size, 0);
      assert.ok(await store().replaceEntry({ ...a, content: 'changed', version: 2, updatedAt: tick() }, 1, 'update'));
      assert.ok((await todo('m1')).has(a.id), 'a new version is embedded again');
      await store().saveEmbeddings('m2', [{ entryId: a.id, version: 2, vector }]);
      assert.equal((await store().loadEmbeddings('m1', [a.id])).size, 0, 'one vector per entry: the newest model’s');
      const progress = await store().embeddingProgress('m2');
      assert.ok(progress.embedded >= 1 && progress.entries > progress.embedded);
    });
  });
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { exposedGc } from '../runtime/idle-collection.js';
import { SearchCache } from '../search/search-cache.js';
import type { TestCairn } from '../testing/test-cairn.js';
import { useCaseStore } from './store-records.fixture.js';

/** What search keeps between calls follows every write, on every backend: datapacks' counts and change numbers, pools and the hits taken from them. */
export function runSearchStateConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store conformance, what search keeps: ${backend}`, { skip }, () => {
    const { store, tenant, tick, datapack, entry } = useCaseStore(start);

    test("a datapack's live count and change number follow every way entries are written, and search sees each change", async () => {
      const d = await datapack();
      const other = await datapack();
      const stats = async (id: string) => {
        const row = await store()
          .db.selectFrom('datapack')
          .select(['live_entries', 'entry_revision'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        // Counted here straight from the entries, not by the triggers under test.
        const counted = await store()
          .db.selectFrom('entry')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('datapack_id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow();
        return { live: Number(row.live_entries), counted: Number(counted.n), revision: Number(row.entry_revision) };
      };
      const found = async (text: string, kinds?: string[]) =>
        (await store().rankedEntries({ datapackIds: [d.id], text, kinds, limit: 10 })).map((h) => h.entry.id);
      let last = await stats(d.id);
      const step = async (what: string, live: number) => {
        const now = await stats(d.id);
        assert.equal(now.live, live, `${what}: live count`);
        assert.equal(now.counted, live, `${what}: the entries themselves`);
        assert.ok(now.revision > last.revision, `${what}: change number moved (${last.revision} → ${now.revision})`);
        last = now;
      };
      assert.equal(last.live, 0);

      const harbour = entry(d.id, { title: 'Harbour schedule', content: 'Ferries leave at nine.' });
      await store().insertEntry(harbour);
      const a = entry(d.id, { title: 'Kitchen rota', content: 'Dishes on Mondays.' });
      await store().insertEntry(a);
      await step('insert', 2);
      assert.deepEqual((await found('dishes'))[0], a.id);
      assert.deepEqual((await found('dishes', ['note']))[0], a.id);
      // Same updatedAt, same count: only the change number tells the cached pool it is stale.
      const a2 = { ...a, content: 'Dishes on Mondays; the lighthouse keeper cooks.', version: 2 };
      assert.equal(await store().replaceEntry(a2, 1, 'update'), true);
      await step('edit within the same millisecond', 2);
      assert.deepEqual((await found('lighthouse keeper'))[0], a.id);
      assert.deepEqual((await found('lighthouse keeper', ['note']))[0], a.id, 'a search of some kinds too');
      assert.equal(
        await store().replaceEntry({ ...a2, version: 3, deletedAt: tick(), updatedAt: tick() }, 2, 'delete'),
        true,
      );
      await step('soft delete', 1);
      assert.ok(!(await found('lighthouse keeper')).includes(a.id));
      assert.ok(!(await found('lighthouse keeper', ['note'])).includes(a.id));
      assert.equal(await store().restoreEntryVersion({ ...a2, version: 4, updatedAt: tick() }, 3, 2), true);
      await step('restore', 2);
      assert.deepEqual((await found('lighthouse keeper'))[0], a.id);
      const turn = entry(d.id, { kind: 'captured', title: 'Captured turn', content: 'The lighthouse keeper waved.' });
      assert.equal(
        (await store().insertCapturedTurn(turn, tenant().member.id, `turn-${turn.id}`, { role: 'user' })).stored,
        true,
      );
      await step('captured turn', 3);
      // A write outside the store's methods (an operator's SQL) is counted too.
      await sql`UPDATE entry SET datapack_id = ${other.id}, updated_at = ${tick()} WHERE id = ${turn.id}`.execute(
        store().db,
      );
      await step('moved out by SQL', 2);
      assert.equal((await stats(other.id)).live, 1);
      await sql`DELETE FROM entry WHERE id = ${a.id}`.execute(store().db);
      await step('hard delete', 1);
      assert.ok(!(await found('lighthouse keeper')).includes(a.id));
      const unchanged = await stats(d.id);
      await sql`UPDATE entry SET created_client = created_client WHERE datapack_id = ${d.id}`.execute(store().db);
      assert.deepEqual(await stats(d.id), unchanged, 'a write that changes nothing search reads moves nothing');
    });

    test('a hit a search returned before comes back as the entry now stands after an edit, a move or a trash', async () => {
      const d = await datapack();
      const other = await datapack();
      const search = async (text: string) =>
        (await store().rankedEntries({ datapackIds: [d.id, other.id], text, limit: 10 })).map((h) => h.entry);
      const e = entry(d.id, { title: 'Greenhouse watering', content: 'Water the tomatoes at dawn.', tags: ['garden'] });
      await store().insertEntry(e);
      const [first] = await search('tomatoes');
      const [again] = await search('tomatoes');
      assert.equal(again, first, 'the same search of unchanged datapacks hands back the held entry, not a new read');
      assert.ok(Object.isFrozen(again) && Object.isFrozen(again?.tags), 'held entries cannot be changed by a caller');

      // An edit within the same millisecond: only the version and the datapack's change number move.
      assert.equal(
        await store().replaceEntry({ ...e, content: 'Water the tomatoes at dusk.', version: 2 }, 1, 'update'),
        true,
      );
      const [edited] = await search('tomatoes');
      assert.equal(edited?.content, 'Water the tomatoes at dusk.');
      assert.equal(edited?.version, 2);
      await search('tomatoes');
      // A move by an operator's SQL keeps the version: a cache keyed by version alone would show the old datapack.
      await sql`UPDATE entry SET datapack_id = ${other.id}, updated_at = ${tick()} WHERE id = ${e.id}`.execute(
        store().db,
      );
      const [moved] = await search('tomatoes');
      assert.equal(moved?.datapackId, other.id);
      assert.equal(moved?.version, 2);
      await sql`UPDATE entry SET deleted_at = ${tick()}, updated_at = ${tick()} WHERE id = ${e.id}`.execute(store().db);
      assert.deepEqual(await search('tomatoes'), []);
    });

    test('a pool replaced after a write is not kept alive by the hits searches took from it', async () => {
      const gc = exposedGc();
      assert.ok(gc, 'V8 hands over its gc()');
      const d = await datapack();
      const e = entry(d.id, { title: 'Beehive inspection', content: 'Check the brood frames weekly.' });
      await store().insertEntry(e);
      assert.equal((await store().rankedEntries({ datapackIds: [d.id], text: 'brood frames', limit: 10 })).length, 1);
      // Only a weak reference is left in this test's scope.
      const old = ((held) => new WeakRef(held!.pool))(
        [...store().searchCache.pools.values()].find((p) => p.pool.items.some((i) => i.id === e.id)),
      );
      await store().insertEntry(entry(d.id, { title: 'Honey harvest', content: 'Harvest in late summer.' }));
      // A search that builds the new pool but returns another entry: the first hit stays held from the old pool.
      const [top] = await store().rankedEntries({ datapackIds: [d.id], text: 'honey harvest', limit: 1 });
      assert.equal(top?.entry.title, 'Honey harvest');
      for (let i = 0; i < 5 && old.deref(); i++) {
        // A WeakRef read in this turn keeps its target until the turn ends.
        await new Promise((resolve) => setImmediate(resolve));
        gc();
      }
      assert.equal(old.deref(), undefined, 'the replaced pool was collected');
    });

    test('the hit cache holds a bounded amount of text: its share of CAIRN_SEARCH_CACHE_MB', async () => {
      // The smallest setting, so that a few hundred entries overfill it.
      const kept = store().searchCache;
      const cache = new SearchCache(8);
      store().searchCache = cache;
      try {
        const bound = cache.hitCharsBound;
        const d = await datapack();
        // Each entry holds a 200th of the bound: 200 of them overfill it.
        const long = 'orchard '.repeat(bound / 200 / 8);
        for (let i = 0; i < 200; i++)
          await store().insertEntry(entry(d.id, { title: `Orchard row ${i}`, content: `${long} row${i}` }));
        for (let i = 0; i < 200; i += 10) {
          const hits = await store().rankedEntries({
            datapackIds: [d.id],
            text: Array.from({ length: 10 }, (_, k) => `row${i + k}`).join(' '),
            limit: 10,
          });
          assert.equal(hits.length, 10);
          assert.ok(cache.heldHitChars <= bound, `${cache.heldHitChars} characters held`);
        }
        assert.ok(cache.heldHitChars > bound / 2, 'the cache is used up to its bound');
      } finally {
        store().searchCache = kept;
      }
    });
  });
}

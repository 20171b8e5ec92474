import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createDomainDeps, newId } from '../domain/deps.js';
import { contentHash } from '../domain/similarity.js';
import { CairnError } from '../errors/cairn-error.js';
import { exposedGc } from '../runtime/idle-collection.js';
import { HIT_CACHE_CHARS, heldHitChars, poolCache } from '../search/search-cache.js';
import { createTenant, type TestTenant } from '../testing/tenants.js';
import type { TestCairn } from '../testing/test-cairn.js';
import { testEntry } from '../testing/test-entry.js';
import type { KyselyStore } from './kysely-store.js';
import type { ApiKeyRecord, Datapack, Entry } from './types.js';

/**
 * The one conformance suite every store backend runs against a real database.
 * `start` gives a fresh Cairn on the backend; `skip` (with its reason) is printed, never silent.
 */
export function runStoreConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store conformance: ${backend}`, { skip }, () => {
    let server: TestCairn;
    let store: KyselyStore;
    let tenant: TestTenant;
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    const tick = () => {
      clock += 1000;
      return new Date(clock).toISOString();
    };

    before(async () => {
      server = await start();
      store = server.cairn.store;
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    const datapack = async (name = `pack ${newId('dpk')}`): Promise<Datapack> => {
      const now = tick();
      const d: Datapack = { id: newId('dpk'), scope: 'personal', ownerId: tenant.member.id, organizationId: null, name, description: '', createdBy: tenant.member.id, createdAt: now, updatedAt: now };
      await store.insertDatapack(d);
      return d;
    };
    const entry = (datapackId: string, over: Partial<Entry> = {}): Entry => {
      const now = tick();
      const title = over.title ?? 'A title';
      const content = over.content ?? 'Some content';
      return {
        id: newId('ent'),
        datapackId,
        kind: 'note',
        title,
        content,
        tags: [],
        contentHash: contentHash(title, content),
        version: 1,
        createdBy: tenant.member.id,
        createdClient: 'test-client/1',
        createdAt: now,
        updatedBy: tenant.member.id,
        updatedClient: 'test-client/1',
        updatedAt: now,
        deletedAt: null,
        ...over,
      };
    };

    test('migrations are idempotent: running them again applies nothing and keeps the data', async () => {
      const d = await datapack();
      const kept = entry(d.id);
      await store.insertEntry(kept);
      const applied = async () => (await sql<{ name: string }>`SELECT name FROM cairn_migration ORDER BY name`.execute(store.db)).rows.map((r) => r.name);
      const before = await applied();
      assert.ok(before.length >= 5, `migrations are recorded: ${before}`);
      await store.migrate();
      await store.migrate();
      assert.deepEqual(await applied(), before);
      assert.deepEqual(await store.getEntry(kept.id), kept);
    });

    test('a setting keeps the first value stored', async () => {
      const name = `s_${newId('key')}`;
      assert.equal(await store.getOrInitSetting(name, 'first'), 'first');
      assert.equal(await store.getOrInitSetting(name, 'second'), 'first');
    });

    test('users and memberships come from the auth tables', async () => {
      assert.equal((await store.findUserByEmail(tenant.owner.email.toUpperCase()))?.id, tenant.owner.id);
      assert.ok((await store.countUsers()) >= 3);
      const m = await store.getMemberships(tenant.member.id);
      assert.deepEqual(
        m.organizations.map((o) => [o.id, o.role]),
        [[tenant.orgId, 'member']],
      );
      assert.deepEqual(
        m.teams.map((t) => t.id),
        [tenant.teamId],
      );
      assert.equal((await store.getMemberships(tenant.owner.id)).organizations[0]!.role, 'owner');
    });

    test('datapack names are unique per owner, ignoring case', async () => {
      const d = await datapack('Recipes');
      assert.deepEqual(await store.getDatapack(d.id), d);
      await assert.rejects(
        () => datapack('RECIPES'),
        (e: unknown) => e instanceof CairnError && e.code === 'conflict',
      );
    });

    test('listing counts live entries and reports the last change', async () => {
      const d = await datapack();
      const a = entry(d.id);
      await store.insertEntry(a);
      await store.insertEntry(entry(d.id, { title: 'Second', content: 'two' }));
      const gone = { ...a, version: 2, deletedAt: tick(), updatedAt: tick() };
      assert.equal(await store.replaceEntry(gone, 1, 'delete'), true);
      const listed = (await store.listDatapacks([{ scope: 'personal', ownerId: tenant.member.id }])).find((p) => p.id === d.id)!;
      assert.equal(listed.entryCount, 1);
      assert.ok(listed.lastChangedAt > d.updatedAt);
      assert.deepEqual(await store.listDatapacks([]), []);
    });

    test("a datapack's live count and change number follow every way entries are written, and search sees each change", async () => {
      const d = await datapack();
      const other = await datapack();
      const stats = async (id: string) => {
        const row = await store.db.selectFrom('datapack').select(['live_entries', 'entry_revision']).where('id', '=', id).executeTakeFirstOrThrow();
        // Counted here straight from the entries, not by the triggers under test.
        const counted = await store.db
          .selectFrom('entry')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('datapack_id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow();
        return { live: Number(row.live_entries), counted: Number(counted.n), revision: Number(row.entry_revision) };
      };
      const found = async (text: string, kinds?: string[]) => (await store.searchEntries({ datapackIds: [d.id], text, kinds, limit: 10 })).map((h) => h.entry.id);
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
      await store.insertEntry(harbour);
      const a = entry(d.id, { title: 'Kitchen rota', content: 'Dishes on Mondays.' });
      await store.insertEntry(a);
      await step('insert', 2);
      assert.deepEqual((await found('dishes'))[0], a.id);
      assert.deepEqual((await found('dishes', ['note']))[0], a.id);
      // Same updatedAt, same count: only the change number tells the cached pool it is stale.
      const a2 = { ...a, content: 'Dishes on Mondays; the lighthouse keeper cooks.', version: 2 };
      assert.equal(await store.replaceEntry(a2, 1, 'update'), true);
      await step('edit within the same millisecond', 2);
      assert.deepEqual((await found('lighthouse keeper'))[0], a.id);
      assert.deepEqual((await found('lighthouse keeper', ['note']))[0], a.id, 'a search of some kinds too');
      assert.equal(await store.replaceEntry({ ...a2, version: 3, deletedAt: tick(), updatedAt: tick() }, 2, 'delete'), true);
      await step('soft delete', 1);
      assert.ok(!(await found('lighthouse keeper')).includes(a.id));
      assert.ok(!(await found('lighthouse keeper', ['note'])).includes(a.id));
      assert.equal(await store.restoreEntryVersion({ ...a2, version: 4, updatedAt: tick() }, 3, 2), true);
      await step('restore', 2);
      assert.deepEqual((await found('lighthouse keeper'))[0], a.id);
      const turn = entry(d.id, { kind: 'captured', title: 'Captured turn', content: 'The lighthouse keeper waved.' });
      assert.equal((await store.insertCapturedTurn(turn, tenant.member.id, `turn-${turn.id}`, { role: 'user' })).stored, true);
      await step('captured turn', 3);
      // A write outside the store's methods (an operator's SQL) is counted too.
      await sql`UPDATE entry SET datapack_id = ${other.id}, updated_at = ${tick()} WHERE id = ${turn.id}`.execute(store.db);
      await step('moved out by SQL', 2);
      assert.equal((await stats(other.id)).live, 1);
      await sql`DELETE FROM entry WHERE id = ${a.id}`.execute(store.db);
      await step('hard delete', 1);
      assert.ok(!(await found('lighthouse keeper')).includes(a.id));
      const unchanged = await stats(d.id);
      await sql`UPDATE entry SET created_client = created_client WHERE datapack_id = ${d.id}`.execute(store.db);
      assert.deepEqual(await stats(d.id), unchanged, 'a write that changes nothing search reads moves nothing');
    });

    test('a hit a search returned before comes back as the entry now stands after an edit, a move or a trash', async () => {
      const d = await datapack();
      const other = await datapack();
      const search = async (text: string) => (await store.searchEntries({ datapackIds: [d.id, other.id], text, limit: 10 })).map((h) => h.entry);
      const e = entry(d.id, { title: 'Greenhouse watering', content: 'Water the tomatoes at dawn.', tags: ['garden'] });
      await store.insertEntry(e);
      const [first] = await search('tomatoes');
      const [again] = await search('tomatoes');
      assert.equal(again, first, 'the same search of unchanged datapacks hands back the held entry, not a new read');
      assert.ok(Object.isFrozen(again) && Object.isFrozen(again?.tags), 'held entries cannot be changed by a caller');

      // An edit within the same millisecond: only the version and the datapack's change number move.
      assert.equal(await store.replaceEntry({ ...e, content: 'Water the tomatoes at dusk.', version: 2 }, 1, 'update'), true);
      const [edited] = await search('tomatoes');
      assert.equal(edited?.content, 'Water the tomatoes at dusk.');
      assert.equal(edited?.version, 2);
      await search('tomatoes');
      // A move by an operator's SQL keeps the version: a cache keyed by version alone would show the old datapack.
      await sql`UPDATE entry SET datapack_id = ${other.id}, updated_at = ${tick()} WHERE id = ${e.id}`.execute(store.db);
      const [moved] = await search('tomatoes');
      assert.equal(moved?.datapackId, other.id);
      assert.equal(moved?.version, 2);
      await sql`UPDATE entry SET deleted_at = ${tick()}, updated_at = ${tick()} WHERE id = ${e.id}`.execute(store.db);
      assert.deepEqual(await search('tomatoes'), []);
    });

    test('a pool replaced after a write is not kept alive by the hits searches took from it', async () => {
      const gc = exposedGc();
      assert.ok(gc, 'V8 hands over its gc()');
      const d = await datapack();
      const e = entry(d.id, { title: 'Beehive inspection', content: 'Check the brood frames weekly.' });
      await store.insertEntry(e);
      assert.equal((await store.searchEntries({ datapackIds: [d.id], text: 'brood frames', limit: 10 })).length, 1);
      // Only a weak reference is left in this test's scope.
      const old = ((held) => new WeakRef(held!.index))([...poolCache.values()].find((p) => p.index.items.some((i) => i.id === e.id)));
      await store.insertEntry(entry(d.id, { title: 'Honey harvest', content: 'Harvest in late summer.' }));
      // A search that builds the new pool but returns another entry: the first hit stays held from the old pool.
      const [top] = await store.searchEntries({ datapackIds: [d.id], text: 'honey harvest', limit: 1 });
      assert.equal(top?.entry.title, 'Honey harvest');
      for (let i = 0; i < 5 && old.deref(); i++) {
        // A WeakRef read in this turn keeps its target until the turn ends.
        await new Promise((resolve) => setImmediate(resolve));
        gc();
      }
      assert.equal(old.deref(), undefined, 'the replaced pool was collected');
    });

    test('the hit cache holds a bounded amount of text', async () => {
      const d = await datapack();
      // Each entry holds a 200th of the bound: 200 of them overfill it.
      const long = 'orchard '.repeat(HIT_CACHE_CHARS / 200 / 8);
      for (let i = 0; i < 200; i++) await store.insertEntry(entry(d.id, { title: `Orchard row ${i}`, content: `${long} row${i}` }));
      for (let i = 0; i < 200; i += 10) {
        const hits = await store.searchEntries({ datapackIds: [d.id], text: Array.from({ length: 10 }, (_, k) => `row${i + k}`).join(' '), limit: 10 });
        assert.equal(hits.length, 10);
        assert.ok(heldHitChars() <= HIT_CACHE_CHARS, `${heldHitChars()} characters held`);
      }
      assert.ok(heldHitChars() > HIT_CACHE_CHARS / 2, 'the cache is used up to its bound');
    });

    test('entries round-trip with tags and provenance', async () => {
      const d = await datapack();
      const e = entry(d.id, { tags: ['a', 'b c'], createdClient: null, kind: 'policy' });
      await store.insertEntry(e);
      assert.deepEqual(await store.getEntry(e.id), e);
      assert.deepEqual(
        (await store.listEntries(d.id, { limit: 10, offset: 0 })).map((x) => x.id),
        [e.id],
      );
      assert.equal((await store.findEntryByContentHash(d.id, e.contentHash))?.id, e.id);
    });

    test('replaceEntry is a compare-and-set on the version and keeps history', async () => {
      const d = await datapack();
      const e = entry(d.id);
      await store.insertEntry(e);
      const v2 = { ...e, title: 'Second title', version: 2, updatedAt: tick() };
      assert.equal(await store.replaceEntry(v2, 1, 'update'), true);
      assert.equal(await store.replaceEntry({ ...v2, title: 'lost', version: 3 }, 1, 'update'), false, 'stale version');
      assert.equal((await store.getEntry(e.id))?.title, 'Second title');
      const v3 = { ...v2, version: 3, deletedAt: tick(), updatedAt: tick() };
      assert.equal(await store.replaceEntry(v3, 2, 'delete'), true);
      assert.equal(await store.replaceEntry({ ...v3, version: 4 }, 3, 'update'), false, 'deleted entries stay deleted');
      const history = await store.listEntryVersions(e.id);
      assert.deepEqual(
        history.map((h) => [h.version, h.change, h.title]),
        [
          [1, 'create', 'A title'],
          [2, 'update', 'Second title'],
          [3, 'delete', 'Second title'],
        ],
      );
      assert.equal(await store.findEntryByContentHash(d.id, e.contentHash), undefined);
      assert.deepEqual(await store.listEntries(d.id, { limit: 10, offset: 0 }), []);
    });

    test('a failed change writes nothing (the entry and its history move together)', async () => {
      const d = await datapack();
      const e = entry(d.id);
      await store.insertEntry(e);
      await sql`INSERT INTO entry_version (entry_id, version, change, kind, title, content, tags, changed_by, changed_client, changed_at)
        VALUES (${e.id}, 2, 'update', 'note', 'planted', 'x', '[]', 'u', NULL, ${tick()})`.execute(store.db);
      await assert.rejects(() => store.replaceEntry({ ...e, title: 'Half-written', version: 2, updatedAt: tick() }, 1, 'update'));
      const now = await store.getEntry(e.id);
      assert.equal(now?.version, 1);
      assert.equal(now?.title, 'A title');
      await assert.rejects(() => store.insertEntry(e), 'the same id twice');
      assert.equal((await store.listEntryVersions(e.id)).filter((v) => v.change === 'create').length, 1);
    });

    test('search ranks title matches first, stems words, and respects filters', async () => {
      const d = await datapack();
      const other = await datapack();
      const title = entry(d.id, { title: 'Deployment checklist', content: 'Canary first, then everyone.' });
      const body = entry(d.id, { title: 'Logging', content: 'Structured logs make a deployment easier to debug.', kind: 'decision' });
      const deleted = entry(d.id, { title: 'Old deployment notes', content: 'obsolete', deletedAt: tick() });
      const elsewhere = entry(other.id, { title: 'Deployment elsewhere', content: 'not in the filter' });
      const unicode = entry(d.id, { title: 'Café rules', content: 'Crème brûlée on Fridays.' });
      for (const e of [title, body, deleted, elsewhere, unicode]) await store.insertEntry(e);
      const hits = await store.searchEntries({ datapackIds: [d.id], text: 'deploying', limit: 10 });
      assert.deepEqual(
        hits.map((h) => h.entry.id),
        [title.id, body.id],
      );
      assert.ok(hits[0]!.score > hits[1]!.score);
      assert.deepEqual(
        (await store.searchEntries({ datapackIds: [d.id], text: 'deployment', kinds: ['decision'], limit: 10 })).map((h) => h.entry.id),
        [body.id],
      );
      assert.deepEqual((await store.searchEntries({ datapackIds: [d.id, other.id], text: 'deployment', limit: 1 })).length, 1);
      assert.deepEqual(
        (await store.searchEntries({ datapackIds: [d.id], text: 'café', limit: 5 })).map((h) => h.entry.id),
        [unicode.id],
      );
      assert.deepEqual(await store.searchEntries({ datapackIds: [d.id], text: 'the and of', limit: 5 }), []);
      assert.deepEqual(await store.searchEntries({ datapackIds: [], text: 'deployment', limit: 5 }), []);
      // Query syntax is inert: each text finds only this datapack's entries by its words, and the table survives.
      const mine = new Set([title.id, body.id, unicode.id]);
      for (const hostile of ['"unbalanced', 'a OR b AND NOT c', 'title:x', 'x* NEAR(y z)', "'; DROP TABLE entry; --", '!&|():*']) {
        const found = await store.searchEntries({ datapackIds: [d.id], text: hostile, limit: 5 });
        assert.ok(
          found.every((h) => mine.has(h.entry.id)),
          `${hostile}: ${found.map((h) => h.entry.title)}`,
        );
      }
      assert.deepEqual(
        (await store.searchEntries({ datapackIds: [d.id], text: 'deployment" OR (', limit: 10 })).map((h) => h.entry.id),
        [title.id, body.id],
      );
      assert.deepEqual(await store.getEntry(title.id), title);
    });

    test('the lexical ranking matches words, not prefixes of their stems as search does', async () => {
      const d = await datapack();
      const deploying = entry(d.id, { title: 'Deploying on Fridays', content: 'We stopped deploying late in the week.' });
      const deplorable = entry(d.id, { title: 'Deplorable weather', content: 'Rain all week.' });
      for (const e of [deploying, deplorable]) await store.insertEntry(e);
      const ids = async (query: Parameters<typeof store.searchEntries>[0]) => (await store.searchEntries(query)).map((h) => h.entry.id).sort();
      assert.deepEqual(await ids({ datapackIds: [d.id], text: 'deploying', limit: 5, ranking: 'lexical' }), [deploying.id]);
      store.semanticSearch = false;
      try {
        assert.deepEqual(await ids({ datapackIds: [d.id], text: 'deploying', limit: 5 }), [deploying.id, deplorable.id].sort(), '"deplo*" finds both');
      } finally {
        store.semanticSearch = true;
      }
    });

    test('search finds an entry by meaning when no word matches; the lexical ranking and the switch do not', async () => {
      const d = await datapack();
      const car = entry(d.id, { title: 'Parking', content: 'Park the car in the garage, never on the street.' });
      const tests = entry(d.id, { title: 'Testing', content: 'Write unit tests first.' });
      const lunch = entry(d.id, { title: 'Lunch', content: 'Lunch is served at noon.' });
      for (const e of [car, tests, lunch]) await store.insertEntry(e);
      const hybrid = await store.searchEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 });
      assert.equal(hybrid[0]?.entry.id, car.id, `${hybrid.map((h) => h.entry.title)}`);
      assert.ok(hybrid[0]!.score > 0.01, `a meaningful score, not one rounded to 0: ${hybrid[0]!.score}`);
      assert.ok(!hybrid.some((h) => h.entry.id === tests.id), 'an unrelated entry is not returned');
      assert.deepEqual(await store.searchEntries({ datapackIds: [d.id], text: 'automobile', limit: 5, ranking: 'lexical' }), []);
      store.semanticSearch = false;
      try {
        assert.deepEqual(await store.searchEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 }), []);
      } finally {
        store.semanticSearch = true;
      }
      assert.deepEqual(await store.searchEntries({ datapackIds: [d.id], text: 'xyzzyq', limit: 5 }), [], 'nothing for words nobody knows');
      // What search keeps between calls follows writes: a deletion and a new entry show at once.
      assert.ok(await store.replaceEntry({ ...car, version: 2, deletedAt: tick(), updatedAt: tick() }, 1, 'delete'));
      assert.ok(!(await store.searchEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 })).some((h) => h.entry.id === car.id));
      const truck = entry(d.id, { title: 'Deliveries', content: 'The truck and the car unload at the back door.' });
      await store.insertEntry(truck);
      assert.equal((await store.searchEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 }))[0]?.entry.id, truck.id);
    });

    test('captured turns: an answer is found through the question before it, and a named speaker’s turns come first', async () => {
      const d = await datapack();
      const said: [string, string, string][] = [
        ['s1', 'Melanie', 'Melanie: What have you been researching lately?'],
        ['s1', 'Caroline', 'Caroline: Adoption agencies, it has been a dream of mine.'],
        ['s1', 'Melanie', 'Melanie: Lovely. I went swimming with the kids.'],
        ['s2', 'Caroline', 'Caroline: I painted a sunrise this weekend.'],
        ['s2', 'Melanie', 'Melanie: I painted a sunrise too, last year.'],
      ];
      const ids: string[] = [];
      for (const [i, [session, speaker, text]] of said.entries()) {
        const turn = entry(d.id, { kind: 'conversation', title: text.slice(0, 20), content: text, createdAt: `2026-02-0${1 + Number(session.slice(1))}T10:00:0${i}.000Z` });
        ids.push(turn.id);
        assert.deepEqual(await store.insertCapturedTurn(turn, tenant.member.id, `turn-${turn.id}`, { role: 'user', sessionId: session, speaker }), { stored: true, entryId: turn.id });
      }
      const top = (text: string) => store.searchEntries({ datapackIds: [d.id], text, limit: 3 }).then((hits) => hits.map((h) => h.entry.id));
      assert.deepEqual((await top('What has Caroline been researching?')).slice(0, 2).sort(), [ids[0], ids[1]].sort(), 'the question and its answer');
      assert.ok(!(await store.searchEntries({ datapackIds: [d.id], text: 'researching', limit: 5, ranking: 'lexical' })).some((h) => h.entry.id === ids[1]), 'words alone miss the answer');
      assert.equal((await top('When did Caroline paint a sunrise?'))[0], ids[3]);
      assert.equal((await top('When did Melanie paint a sunrise?'))[0], ids[4]);
      const [row] = await store.db.selectFrom('capture_turn').select(['session_id', 'speaker', 'role']).where('entry_id', '=', ids[1]!).execute();
      assert.deepEqual(row, { session_id: 's1', speaker: 'Caroline', role: 'user' });
    });

    test('embeddings: stored per entry version and model; a new version, another model or a new entry is to embed again', async () => {
      const d = await datapack();
      const a = entry(d.id, { title: 'Embed me', content: 'first' });
      const b = entry(d.id, { title: 'Embed me too', content: 'second' });
      const gone = entry(d.id, { title: 'Deleted', content: 'never embedded', deletedAt: tick() });
      for (const e of [a, b, gone]) await store.insertEntry(e);
      const todo = async (model: string) => new Set((await store.entriesToEmbed(model, 10_000)).map((e) => e.id));
      assert.ok((await todo('m1')).has(a.id) && (await todo('m1')).has(b.id));
      assert.ok(!(await todo('m1')).has(gone.id), 'deleted entries are not embedded');
      const vector = Float32Array.from([0.6, 0.8, 0]);
      await store.saveEmbeddings('m1', [
        { entryId: a.id, version: 1, vector },
        { entryId: b.id, version: 1, vector },
      ]);
      assert.ok(!(await todo('m1')).has(a.id));
      const loaded = await store.loadEmbeddings('m1', [a.id, b.id, gone.id]);
      assert.deepEqual([...loaded.get(a.id)!.vector], [...vector]);
      assert.equal(loaded.size, 2);
      assert.ok((await todo('m2')).has(a.id), 'another model embeds everything again');
      assert.equal((await store.loadEmbeddings('m2', [a.id])).size, 0);
      assert.ok(await store.replaceEntry({ ...a, content: 'changed', version: 2, updatedAt: tick() }, 1, 'update'));
      assert.ok((await todo('m1')).has(a.id), 'a new version is embedded again');
      await store.saveEmbeddings('m2', [{ entryId: a.id, version: 2, vector }]);
      assert.equal((await store.loadEmbeddings('m1', [a.id])).size, 0, 'one vector per entry: the newest model’s');
      const progress = await store.embeddingProgress('m2');
      assert.ok(progress.embedded >= 1 && progress.entries > progress.embedded);
    });

    test('OAuth grant usage: the latest use per user and app, never moved backwards', async () => {
      const u = tenant.member.id;
      await store.recordOAuthUse([{ userId: u, clientId: 'app-1', at: '2026-03-01T10:00:00.000Z', client: 'Claude Code 2.1' }]);
      await store.recordOAuthUse([{ userId: u, clientId: 'app-1', at: '2026-03-01T09:00:00.000Z', client: 'older' }]);
      await store.recordOAuthUse([{ userId: u, clientId: 'app-2', at: '2026-03-02T10:00:00.000Z', client: null }]);
      const uses = (await store.listOAuthUse(u)).sort((a, b) => a.clientId.localeCompare(b.clientId));
      assert.deepEqual(uses, [
        { userId: u, clientId: 'app-1', at: '2026-03-01T10:00:00.000Z', client: 'Claude Code 2.1' },
        { userId: u, clientId: 'app-2', at: '2026-03-02T10:00:00.000Z', client: null },
      ]);
      assert.deepEqual(await store.listOAuthUse(tenant.outsider.id), []);
    });

    test('client names: kept per key and per OAuth grant, replaced by the next, untouched by usage; a grant not yet used gets its row', async () => {
      const deps = createDomainDeps(store);
      const key: ApiKeyRecord = {
        id: deps.newId('key'),
        userId: tenant.member.id,
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
      await store.insertApiKey(key, `hash-${key.id}`);
      assert.equal(await store.clientNameOf({ keyId: key.id }), undefined);
      await store.rememberClientName({ keyId: key.id }, 'Cursor 1.7.2', tick());
      await store.rememberClientName({ keyId: key.id }, 'Claude Code 2.1.330', tick());
      await store.recordKeyUsage([{ id: key.id, at: tick(), client: 'cairn-mcp-installer/1.0' }]);
      assert.equal(await store.clientNameOf({ keyId: key.id }), 'Claude Code 2.1.330', 'a use that named no client leaves the name alone');
      assert.equal(await store.clientNameOf({ keyId: 'key_unknown' }), undefined);

      const grant = { userId: tenant.member.id, oauthClientId: 'app-named' };
      await store.rememberClientName(grant, 'Codex 0.169.0', '2026-03-03T10:00:00.000Z');
      assert.equal(await store.clientNameOf(grant), 'Codex 0.169.0');
      assert.ok(
        (await store.listOAuthUse(tenant.member.id)).some((u) => u.clientId === 'app-named' && u.client === 'Codex 0.169.0'),
        'a first sight of the grant counts as its use',
      );
      await store.recordOAuthUse([{ userId: tenant.member.id, clientId: 'app-named', at: '2026-03-04T10:00:00.000Z', client: 'codex_exec/0.169' }]);
      await store.rememberClientName(grant, 'Codex 0.170.0', '2026-03-04T11:00:00.000Z');
      assert.equal(await store.clientNameOf(grant), 'Codex 0.170.0');
      assert.equal(await store.clientNameOf({ userId: tenant.outsider.id, oauthClientId: 'app-named' }), undefined, 'per user');
    });

    test("one user's search is the same whether or not the database holds other users' entries", async () => {
      // The same entries of user A go into this database and into a second one that also holds a
      // crowd of other tenants' entries sharing A's words: A's results, order and scores must not move.
      const words = 'deployment canary rollback logging metrics pnpm testing review python typescript database backup camping painting adoption'.split(' ');
      let seed = 7;
      const pick = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return words[seed % words.length]!;
      };
      const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');
      const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      const packOf = (id: string, ownerId: string): Datapack => ({
        id,
        scope: 'personal',
        ownerId,
        organizationId: null,
        name: `pack ${id}`,
        description: '',
        createdBy: ownerId,
        createdAt: at(0),
        updatedAt: at(0),
      });
      const entryOf = (id: string, datapackId: string, i: number, title: string, content: string) => testEntry({ id, datapackId, title, content, updatedAt: at(i) });
      const mine = packOf(newId('dpk'), tenant.member.id);
      const mineEntries = Array.from({ length: 40 }, (_, i) => entryOf(newId('ent'), mine.id, i + 1, sentence(3), sentence(12 + (i % 9))));
      const queries = ['deployment rollback', 'camping painting adoption', 'pnpm testing', 'python database backup review', 'metrics'];
      const searchA = async (s: KyselyStore) => Promise.all(queries.map(async (text) => (await s.searchEntries({ datapackIds: [mine.id], text, limit: 15 })).map((h) => [h.entry.id, h.score])));

      await store.insertDatapack(mine);
      for (const e of mineEntries) await store.insertEntry(e);
      const alone = await searchA(store);
      assert.ok(
        alone.every((hits) => hits.length > 3),
        "every query finds several of A's entries",
      );

      const crowded = await start();
      try {
        const other = crowded.cairn.store;
        await other.insertDatapack(mine);
        for (const e of mineEntries) await other.insertEntry(e);
        // Other tenants: a skewed vocabulary (half their entries say "deployment" and "metrics") in many datapacks.
        for (let p = 0; p < 6; p++) {
          const theirs = packOf(newId('dpk'), `someone-else-${p}`);
          await other.insertDatapack(theirs);
          for (let i = 0; i < 60; i++) {
            const content = i % 2 ? `deployment metrics ${sentence(4)}` : sentence(20);
            await other.insertEntry(entryOf(newId('ent'), theirs.id, 100 + i, `deployment ${pick()}`, content));
          }
        }
        assert.deepEqual(await searchA(other), alone);
      } finally {
        await crowded.close();
      }
    });

    test('API keys: lookup by hash, newest first, revoke once, usage only moves forward', async () => {
      const deps = createDomainDeps(store);
      const base = { userId: tenant.owner.id, start: 'cairn_tkn_abcd', last4: 'wxyz', revokedAt: null, lastUsedAt: null, lastUsedClient: null };
      const older: ApiKeyRecord = { ...base, id: deps.newId('key'), name: 'older', scope: 'read-write', createdAt: tick(), expiresAt: null };
      const newer: ApiKeyRecord = { ...base, id: deps.newId('key'), name: 'newer', scope: 'read', createdAt: tick(), expiresAt: '2026-04-01T12:30:45.678Z' };
      await store.insertApiKey(older, `hash-${older.id}`);
      await store.insertApiKey(newer, `hash-${newer.id}`);
      assert.deepEqual(await store.findApiKeyByHash(`hash-${older.id}`), older);
      assert.deepEqual(await store.findApiKeyByHash(`hash-${newer.id}`), newer, 'scope and expiry round-trip to the millisecond');
      assert.deepEqual(await store.getApiKey(newer.id), newer);
      assert.equal(await store.findApiKeyByHash('nope'), undefined);
      const names = (await store.listApiKeys(tenant.owner.id)).map((k) => k.name);
      assert.ok(names.indexOf('newer') < names.indexOf('older'));
      const at = tick();
      assert.equal(await store.revokeApiKey(older.id, at), true);
      assert.equal(await store.revokeApiKey(older.id, tick()), false);
      assert.equal((await store.getApiKey(older.id))?.revokedAt, at);
      const late = tick();
      await store.recordKeyUsage([{ id: newer.id, at: late, client: 'later-client' }]);
      await store.recordKeyUsage([{ id: newer.id, at: '2020-01-01T00:00:00.000Z', client: 'stale-client' }]);
      const used = (await store.getApiKey(newer.id))!;
      assert.deepEqual([used.lastUsedAt, used.lastUsedClient], [late, 'later-client']);
      assert.deepEqual([used.scope, used.expiresAt], ['read', newer.expiresAt], 'usage leaves scope and expiry alone');
    });

    test('API keys made before scopes existed read back as read-write without expiry; an unknown scope is refused', async () => {
      const id = newId('key');
      // The columns the first migration made, and nothing else: what a row written by an older Cairn holds.
      await sql`INSERT INTO api_key (id, user_id, name, start, last4, key_hash, created_at)
        VALUES (${id}, ${tenant.owner.id}, 'legacy', 'cairn_tkn_lega', 'acy1', ${`hash-${id}`}, ${tick()})`.execute(store.db);
      const legacy = (await store.getApiKey(id))!;
      assert.deepEqual([legacy.scope, legacy.expiresAt], ['read-write', null]);
      const bad = newId('key');
      await assert.rejects(
        sql`INSERT INTO api_key (id, user_id, name, start, last4, key_hash, created_at, scope)
          VALUES (${bad}, ${tenant.owner.id}, 'bad', 'cairn_tkn_badd', 'bad1', ${`hash-${bad}`}, ${tick()}, 'admin')`.execute(store.db),
      );
      assert.equal(await store.getApiKey(bad), undefined);
    });
  });
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../domain/deps.js';
import type { TestCairn } from '../testing/test-cairn.js';
import { testEntry } from '../testing/test-entry.js';
import type { KyselyStore } from './kysely-store.js';
import { useCaseStore } from './store-records.fixture.js';
import type { Datapack } from './types.js';

/** How the store's search ranks, on every backend: words, stems, filters, meaning, conversations, and one user's results whoever else is stored. */
export function runStoreSearchConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`store conformance, search: ${backend}`, { skip }, () => {
    const { store, tenant, tick, datapack, entry } = useCaseStore(start);

    test('search ranks title matches first, stems words, and respects filters', async () => {
      const d = await datapack();
      const other = await datapack();
      const title = entry(d.id, { title: 'Deployment checklist', content: 'Canary first, then everyone.' });
      const body = entry(d.id, {
        title: 'Logging',
        content: 'Structured logs make a deployment easier to debug.',
        kind: 'decision',
      });
      const deleted = entry(d.id, { title: 'Old deployment notes', content: 'obsolete', deletedAt: tick() });
      const elsewhere = entry(other.id, { title: 'Deployment elsewhere', content: 'not in the filter' });
      const unicode = entry(d.id, { title: 'Café rules', content: 'Crème brûlée on Fridays.' });
      for (const e of [title, body, deleted, elsewhere, unicode]) await store().insertEntry(e);
      const hits = await store().rankedEntries({ datapackIds: [d.id], text: 'deploying', limit: 10 });
      assert.deepEqual(
        hits.map((h) => h.entry.id),
        [title.id, body.id],
      );
      assert.ok(hits[0]!.score > hits[1]!.score);
      assert.deepEqual(
        (await store().rankedEntries({ datapackIds: [d.id], text: 'deployment', kinds: ['decision'], limit: 10 })).map(
          (h) => h.entry.id,
        ),
        [body.id],
      );
      assert.deepEqual(
        (await store().rankedEntries({ datapackIds: [d.id, other.id], text: 'deployment', limit: 1 })).length,
        1,
      );
      assert.deepEqual(
        (await store().rankedEntries({ datapackIds: [d.id], text: 'café', limit: 5 })).map((h) => h.entry.id),
        [unicode.id],
      );
      assert.deepEqual(await store().rankedEntries({ datapackIds: [d.id], text: 'the and of', limit: 5 }), []);
      assert.deepEqual(await store().rankedEntries({ datapackIds: [], text: 'deployment', limit: 5 }), []);
      // Query syntax is inert: each text finds only this datapack's entries by its words, and the table survives.
      const mine = new Set([title.id, body.id, unicode.id]);
      for (const hostile of [
        '"unbalanced',
        'a OR b AND NOT c',
        'title:x',
        'x* NEAR(y z)',
        "'; DROP TABLE entry; --",
        '!&|():*',
      ]) {
        const found = await store().rankedEntries({ datapackIds: [d.id], text: hostile, limit: 5 });
        assert.ok(
          found.every((h) => mine.has(h.entry.id)),
          `${hostile}: ${found.map((h) => h.entry.title)}`,
        );
      }
      assert.deepEqual(
        (await store().rankedEntries({ datapackIds: [d.id], text: 'deployment" OR (', limit: 10 })).map(
          (h) => h.entry.id,
        ),
        [title.id, body.id],
      );
      assert.deepEqual(await store().getEntry(title.id), title);
    });

    test('the lexical ranking matches words, not prefixes of their stems as search does', async () => {
      const d = await datapack();
      const deploying = entry(d.id, {
        title: 'Deploying on Fridays',
        content: 'We stopped deploying late in the week.',
      });
      const deplorable = entry(d.id, { title: 'Deplorable weather', content: 'Rain all week.' });
      for (const e of [deploying, deplorable]) await store().insertEntry(e);
      const ids = async (query: Parameters<KyselyStore['rankedEntries']>[0]) =>
        (await store().rankedEntries(query)).map((h) => h.entry.id).sort();
      assert.deepEqual(await ids({ datapackIds: [d.id], text: 'deploying', limit: 5, forDuplicateCheck: true }), [
        deploying.id,
      ]);
      store().semanticSearch = false;
      try {
        assert.deepEqual(
          await ids({ datapackIds: [d.id], text: 'deploying', limit: 5 }),
          [deploying.id, deplorable.id].sort(),
          '"deplo*" finds both',
        );
      } finally {
        store().semanticSearch = true;
      }
    });

    test('search finds an entry by meaning when no word matches; the lexical ranking and the switch do not', async () => {
      const d = await datapack();
      const car = entry(d.id, { title: 'Parking', content: 'Park the car in the garage, never on the street.' });
      const tests = entry(d.id, { title: 'Testing', content: 'Write unit tests first.' });
      const lunch = entry(d.id, { title: 'Lunch', content: 'Lunch is served at noon.' });
      for (const e of [car, tests, lunch]) await store().insertEntry(e);
      const hybrid = await store().rankedEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 });
      assert.equal(hybrid[0]?.entry.id, car.id, `${hybrid.map((h) => h.entry.title)}`);
      assert.ok(hybrid[0]!.score > 0.01, `a meaningful score, not one rounded to 0: ${hybrid[0]!.score}`);
      assert.ok(!hybrid.some((h) => h.entry.id === tests.id), 'an unrelated entry is not returned');
      assert.deepEqual(
        await store().rankedEntries({ datapackIds: [d.id], text: 'automobile', limit: 5, forDuplicateCheck: true }),
        [],
      );
      store().semanticSearch = false;
      try {
        assert.deepEqual(await store().rankedEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 }), []);
      } finally {
        store().semanticSearch = true;
      }
      assert.deepEqual(
        await store().rankedEntries({ datapackIds: [d.id], text: 'xyzzyq', limit: 5 }),
        [],
        'nothing for words nobody knows',
      );
      // What search keeps between calls follows writes: a deletion and a new entry show at once.
      assert.ok(await store().replaceEntry({ ...car, version: 2, deletedAt: tick(), updatedAt: tick() }, 1, 'delete'));
      assert.ok(
        !(await store().rankedEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 })).some(
          (h) => h.entry.id === car.id,
        ),
      );
      const truck = entry(d.id, { title: 'Deliveries', content: 'The truck and the car unload at the back door.' });
      await store().insertEntry(truck);
      assert.equal(
        (await store().rankedEntries({ datapackIds: [d.id], text: 'automobile', limit: 5 }))[0]?.entry.id,
        truck.id,
      );
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
        const turn = entry(d.id, {
          kind: 'conversation',
          title: text.slice(0, 20),
          content: text,
          createdAt: `2026-02-0${1 + Number(session.slice(1))}T10:00:0${i}.000Z`,
        });
        ids.push(turn.id);
        assert.deepEqual(
          await store().insertCapturedTurn(turn, tenant().member.id, `turn-${turn.id}`, {
            role: 'user',
            sessionId: session,
            speaker,
          }),
          { stored: true, entryId: turn.id },
        );
      }
      const top = (text: string) =>
        store()
          .rankedEntries({ datapackIds: [d.id], text, limit: 3 })
          .then((hits) => hits.map((h) => h.entry.id));
      assert.deepEqual(
        (await top('What has Caroline been researching?')).slice(0, 2).sort(),
        [ids[0], ids[1]].sort(),
        'the question and its answer',
      );
      assert.ok(
        !(
          await store().rankedEntries({ datapackIds: [d.id], text: 'researching', limit: 5, forDuplicateCheck: true })
        ).some((h) => h.entry.id === ids[1]),
        'words alone miss the answer',
      );
      assert.equal((await top('When did Caroline paint a sunrise?'))[0], ids[3]);
      assert.equal((await top('When did Melanie paint a sunrise?'))[0], ids[4]);
      const [row] = await store()
        .db.selectFrom('capture_turn')
        .select(['session_id', 'speaker', 'role'])
        .where('entry_id', '=', ids[1]!)
        .execute();
      assert.deepEqual(row, { session_id: 's1', speaker: 'Caroline', role: 'user' });
    });

    test("one user's search is the same whether or not the database holds other users' entries", async () => {
      // The same entries of user A go into this database and into a second one that also holds a
      // crowd of other tenants' entries sharing A's words: A's results, order and scores must not move.
      const words =
        'deployment canary rollback logging metrics pnpm testing review python typescript database backup camping painting adoption'.split(
          ' ',
        );
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
      const entryOf = (id: string, datapackId: string, i: number, title: string, content: string) =>
        testEntry({ id, datapackId, title, content, updatedAt: at(i) });
      const mine = packOf(newId('dpk'), tenant().member.id);
      const mineEntries = Array.from({ length: 40 }, (_, i) =>
        entryOf(newId('ent'), mine.id, i + 1, sentence(3), sentence(12 + (i % 9))),
      );
      const queries = [
        'deployment rollback',
        'camping painting adoption',
        'pnpm testing',
        'python database backup review',
        'metrics',
      ];
      const searchA = async (s: KyselyStore) =>
        Promise.all(
          queries.map(async (text) =>
            (await s.rankedEntries({ datapackIds: [mine.id], text, limit: 15 })).map((h) => [h.entry.id, h.score]),
          ),
        );

      await store().insertDatapack(mine);
      for (const e of mineEntries) await store().insertEntry(e);
      const alone = await searchA(store());
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
  });
}

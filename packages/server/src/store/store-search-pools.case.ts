import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type Access, loadAccess } from '../domain/access.js';
import { deleteEntry, saveEntry, searchEntries, updateEntry } from '../domain/entries.js';
import { restoreEntry } from '../domain/trash.js';
import type { TestCairn } from '../testing/test-cairn.js';
import { useCaseStore } from './store-records.fixture.js';

/** The sentences a user holds before the writes under test: distinct topics, so each search has one answer. */
const HELD = [
  ['Test runner', 'Prefer node:test over jest for new packages.'],
  ['Deploy windows', 'Production deploys happen on Tuesday and Thursday mornings only.'],
  ['Code review', 'Every change needs one approving review from another team member.'],
  ['Database choice', 'New services store their data in PostgreSQL, not MongoDB.'],
  ['Logging', 'Services log structured JSON lines to standard output.'],
  ['Formatting', 'Biome formats the TypeScript sources; do not argue about style in review.'],
] as const;

/**
 * Search pools under writes, on a real database: a save, an update, a delete and a restore bring
 * the writer's cached pool up to date (reading only what changed, never the whole pool again),
 * and the near-duplicate check, which finds its candidates in the same pools, decides as before.
 */
export function runSearchPoolConformance(backend: string, start: () => Promise<TestCairn>, skip?: string): void {
  describe(`search pools under writes: ${backend}`, { skip }, () => {
    const { server, tenant } = useCaseStore(start);
    let access: Access;
    const ids = new Map<string, string>();

    before(async () => {
      access = await loadAccess(server().cairn.domain, {
        userId: tenant().member.id,
        client: 'test',
        via: 'session',
        scope: 'read-write',
      });
      for (const [title, content] of HELD) {
        const saved = await saveEntry(server().cairn.domain, access, { kind: 'preference', title, content });
        assert.equal(saved.status, 'created', title);
        ids.set(title, saved.entry.id);
      }
    });

    // The store's own: what this test's Cairn keeps, whatever other Cairns in the process do.
    const stats = () => server().cairn.store.searchCache.stats;
    /**
     * Lowers the store's pool limit, so that a test reaches the ranking of a caller with more entries
     * than a pool holds (rankFound) with a handful of entries instead of 25,000. Returns the previous limit.
     */
    const limitPoolForTests = (entries: number) => {
      const cache = server().cairn.store.searchCache;
      const previous = cache.semanticPool;
      cache.semanticPool = entries;
      return previous;
    };

    const top = async (query: string) =>
      (await searchEntries(server().cairn.domain, access, { query, limit: 3 }))[0]?.entry;

    test('a save, an update, a delete and a restore are found by the next search from a refreshed pool, not a rebuilt one', async () => {
      assert.equal((await top('which test runner for new packages'))?.id, ids.get('Test runner'));
      const built = stats().built;
      const refreshed = stats().refreshed;
      const read = stats().refreshedEntries;

      const saved = await saveEntry(server().cairn.domain, access, {
        kind: 'decision',
        title: 'Message queue',
        content: 'Background jobs go through RabbitMQ queues.',
      });
      assert.equal(saved.status, 'created');
      assert.equal((await top('which message queue for background jobs'))?.id, saved.entry.id);
      const updated = await updateEntry(server().cairn.domain, access, {
        id: saved.entry.id,
        expectedVersion: 1,
        content: 'Background jobs go through Redis streams now.',
      });
      assert.equal((await top('redis streams'))?.id, saved.entry.id);
      assert.equal(
        (await searchEntries(server().cairn.domain, access, { query: 'rabbitmq', limit: 3 })).length,
        0,
        'the old text is gone from the pool',
      );
      await deleteEntry(server().cairn.domain, access, saved.entry.id, updated.entry.version);
      assert.notEqual((await top('redis streams background jobs'))?.id, saved.entry.id);
      await restoreEntry(server().cairn.domain, access, { id: saved.entry.id });
      assert.equal((await top('redis streams background jobs'))?.id, saved.entry.id);

      assert.equal(stats().built, built, 'no pool was read whole again');
      // The save was taken into the pool by the save itself (see the next test); the others refresh it.
      assert.ok(stats().refreshed - refreshed >= 3, `${stats().refreshed - refreshed} refreshes`);
      // Each refresh read at most the one entry that changed.
      assert.ok(
        stats().refreshedEntries - read <= stats().refreshed - refreshed,
        `${stats().refreshedEntries - read} entries read`,
      );
    });

    test("a save is taken into the writer's pool, so its next search reads nothing; a write the pool missed in between leaves it to that search", async () => {
      assert.equal((await top('which test runner for new packages'))?.id, ids.get('Test runner'));
      const before = { ...stats() };
      const saved = await saveEntry(server().cairn.domain, access, {
        kind: 'decision',
        title: 'Feature flags',
        content: 'Feature flags live in LaunchDarkly.',
      });
      assert.ok(stats().taken > before.taken, 'the save gave its pool the entry');
      assert.equal((await top('where do feature flags live'))?.id, saved.entry.id);
      assert.deepEqual(
        [stats().built, stats().refreshed],
        [before.built, before.refreshed],
        'the search found its pool current',
      );

      // An update (not taken) and then a save without a duplicate check (which would have refreshed
      // the pool): the save cannot prove that nothing else changed, so the next search refreshes.
      await updateEntry(server().cairn.domain, access, {
        id: saved.entry.id,
        expectedVersion: 1,
        content: 'Feature flags live in Unleash now.',
      });
      const taken = stats().taken;
      const other = await saveEntry(server().cairn.domain, access, {
        kind: 'decision',
        title: 'Secrets',
        content: 'Secrets are kept in Vault.',
        allowSimilar: true,
      });
      assert.equal(stats().taken, taken, 'not taken: the pool missed the update');
      assert.equal((await top('unleash feature flags'))?.id, saved.entry.id);
      assert.equal((await top('where are secrets kept'))?.id, other.entry.id);
      assert.ok(stats().refreshed > before.refreshed, 'brought up to date by the search');
      assert.equal(stats().built, before.built);
      await deleteEntry(server().cairn.domain, access, saved.entry.id, 2);
      await deleteEntry(server().cairn.domain, access, other.entry.id, 1);
    });

    test('the near-duplicate check finds the entry a save nearly repeats, and lets a different text sharing words through', async () => {
      const again = await saveEntry(server().cairn.domain, access, {
        kind: 'preference',
        title: 'Deploy windows',
        content: 'Production deploys happen on Tuesday and Thursday mornings only!',
      });
      assert.equal(again.status, 'duplicate');
      assert.equal(again.entry.id, ids.get('Deploy windows'));
      const reworded = await saveEntry(server().cairn.domain, access, {
        kind: 'note',
        title: 'Logging',
        content: 'All services log structured JSON lines to standard output.',
      });
      assert.equal(reworded.status, 'duplicate');
      assert.equal(reworded.entry.id, ids.get('Logging'));
      const other = await saveEntry(server().cairn.domain, access, {
        kind: 'note',
        title: 'Deploy freeze',
        content: 'No production deploys during the December holidays.',
      });
      assert.equal(other.status, 'created', 'shares "production deploys" but says something else');
    });

    test('a caller with more entries than the pool holds: old entries are found by the full-text index and ranked with the pool, an old entry changed since by its new text', async () => {
      const previous = limitPoolForTests(3);
      try {
        // A save after lowering the limit: the next search reads the newest three, not the pool held before.
        const newest = await saveEntry(server().cairn.domain, access, {
          kind: 'decision',
          title: 'Error tracking',
          content: 'Exceptions are reported to Sentry with the release tag.',
        });
        assert.equal(newest.status, 'created');
        const built = stats().built;
        assert.equal(
          (await top('which test runner for new packages'))?.id,
          ids.get('Test runner'),
          'the oldest entry, outside the pool',
        );
        assert.equal(
          (await top('where are exceptions reported'))?.id,
          newest.entry.id,
          'the newest entry, inside the pool',
        );
        const hits = await searchEntries(server().cairn.domain, access, {
          query: 'production deploys on tuesday',
          limit: 10,
        });
        assert.equal(hits[0]?.entry.id, ids.get('Deploy windows'));
        assert.ok(
          hits.every((h) => h.score > 0),
          'every hit scored',
        );
        const old = ids.get('Database choice')!;
        const current = (await searchEntries(server().cairn.domain, access, { query: 'postgresql', limit: 1 }))[0]!
          .entry;
        assert.equal(current.id, old);
        await updateEntry(server().cairn.domain, access, {
          id: old,
          expectedVersion: current.version,
          content: 'New services store their data in CockroachDB.',
        });
        assert.equal((await top('cockroachdb'))?.id, old, 'found by its new text');
        assert.equal(
          (await searchEntries(server().cairn.domain, access, { query: 'mongodb', limit: 3 })).length,
          0,
          'its old text is gone',
        );
        assert.equal(stats().built, built, 'the pool was refreshed, not read whole');
      } finally {
        limitPoolForTests(previous);
      }
    });

    test('a datapack with more entries than a search pool holds: the near-duplicate check ranks a pool of all of them, kept up to date by each save', async () => {
      const previous = limitPoolForTests(3);
      try {
        // The oldest entry, outside the newest three that a search's pool now holds.
        const again = await saveEntry(server().cairn.domain, access, {
          kind: 'preference',
          title: 'Test runner',
          content: 'Prefer node:test over jest for all new packages.',
        });
        assert.equal(again.status, 'duplicate');
        assert.equal(again.entry.id, ids.get('Test runner'));
        const { built, refreshed, taken } = stats();
        const saved = await saveEntry(server().cairn.domain, access, {
          kind: 'note',
          title: 'Feature flags',
          content: 'Flags live in LaunchDarkly and are removed within a month of launch.',
        });
        assert.equal(saved.status, 'created');
        // A search's pool of three is full and takes nothing: only a pool of the whole datapack does.
        assert.equal(stats().taken, taken + 1, 'the saved entry was taken into the pool of all entries');
        const repeat = await saveEntry(server().cairn.domain, access, {
          kind: 'note',
          title: 'Feature flags',
          content: 'Flags live in LaunchDarkly and are removed within a month of the launch.',
        });
        assert.equal(repeat.status, 'duplicate');
        assert.equal(repeat.entry.id, saved.entry.id);
        const review = await saveEntry(server().cairn.domain, access, {
          kind: 'preference',
          title: 'Code review',
          content: 'Every change needs an approving review from another team member.',
        });
        assert.equal(review.status, 'duplicate');
        assert.equal(review.entry.id, ids.get('Code review'));
        assert.deepEqual([stats().built, stats().refreshed], [built, refreshed], 'no pool was read again');
        await deleteEntry(server().cairn.domain, access, saved.entry.id, 1);
      } finally {
        limitPoolForTests(previous);
      }
    });
  });
}

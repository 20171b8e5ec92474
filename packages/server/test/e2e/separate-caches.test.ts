import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Access, loadAccess } from '../../src/domain/access.js';
import { readableDatapacks } from '../../src/domain/datapacks.js';
import { searchEntries } from '../../src/domain/entries.js';
import { getGuidance } from '../../src/domain/guidance.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { startTenantCairn } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';
import { testEntry } from '../../src/testing/test-entry.js';

/** The same id in both Cairns, as an export's database and its import's may hold: each with its own text. */
const SHARED_ID = 'ent_sharedbetweencairns00';

/** A member's access and personal datapack in one Cairn. */
async function memberOf(server: TestCairn, userId: string): Promise<{ access: Access; personal: string }> {
  const access = await loadAccess(server.cairn.domain, { userId, client: 'test', via: 'session', scope: 'read-write' });
  const packs = await readableDatapacks(server.cairn.domain, access);
  return { access, personal: packs.find((p) => p.scope === 'personal')!.id };
}

/** What both caches of a Cairn hold now. */
function held(server: TestCairn) {
  return { search: server.cairn.store.searchCache.held(), domain: server.cairn.domain.caches.held() };
}

// Search's and the domain's caches belong to each Cairn (its store and its DomainDeps): two opened in
// one process share nothing, even entries of the same id and version, and closing one leaves the other working.
forEachBackend((backend) => {
  describe(`two Cairns in one process keep separate caches: ${backend.name}`, { skip: backend.skip }, () => {
    let first: TestCairn;
    let second: TestCairn;
    let a: { access: Access; personal: string };
    let b: { access: Access; personal: string };
    let firstOpen = true;

    before(async () => {
      const one = await startTenantCairn(backend.options);
      first = one.server;
      const two = await startTenantCairn(backend.options);
      second = two.server;
      a = await memberOf(first, one.tenant.member.id);
      b = await memberOf(second, two.tenant.member.id);
      const rule = (datapackId: string, userId: string, title: string, content: string) =>
        testEntry({
          id: SHARED_ID,
          datapackId,
          title,
          content,
          kind: 'preference',
          createdBy: userId,
          updatedBy: userId,
        });
      await first.cairn.store.insertEntry(
        rule(a.personal, one.tenant.member.id, 'Beehive inspection', 'Check the brood frames of every beehive weekly.'),
      );
      await second.cairn.store.insertEntry(
        rule(
          b.personal,
          two.tenant.member.id,
          'Sourdough starter',
          'Feed the sourdough starter flour and water daily.',
        ),
      );
    });

    after(async () => {
      if (firstOpen) await first?.close();
      await second?.close();
    });

    test("a search and a guidance call in one fill its caches and not the other's", async () => {
      const untouched = held(second);
      const before = held(first);
      const hits = await searchEntries(first.cairn.domain, a.access, { query: 'beehive brood frames', limit: 5 });
      assert.deepEqual(
        hits.map((h) => h.entry.title),
        ['Beehive inspection'],
      );
      const searched = held(first);
      assert.ok(searched.search.pools > before.search.pools, 'the search kept a pool');
      assert.ok(searched.search.hits > before.search.hits, 'and its hit');
      assert.ok(searched.search.words > before.search.words, "and the entry's words");
      const guidance = await getGuidance(first.cairn.domain, a.access, { task: 'inspect the beehive brood frames' });
      assert.deepEqual(
        guidance.levels.flatMap((l) => l.items.map((i) => i.entry.title)),
        ['Beehive inspection'],
      );
      assert.ok(held(first).domain.ruleWords > before.domain.ruleWords, "guidance kept the rule's stemmed words");
      assert.deepEqual(held(second), untouched, 'the other Cairn holds what it held before');
    });

    test("an entry of the same id and version is ranked by each Cairn's own text", async () => {
      // The first Cairn has split its entry into words above; the second must not take them for its own.
      const found = await searchEntries(second.cairn.domain, b.access, { query: 'sourdough starter flour', limit: 5 });
      assert.deepEqual(
        found.map((h) => [h.entry.id, h.entry.title]),
        [[SHARED_ID, 'Sourdough starter']],
      );
      assert.deepEqual(await searchEntries(second.cairn.domain, b.access, { query: 'beehive brood', limit: 5 }), []);
    });

    test('closing one Cairn leaves the other searching and answering guidance', async () => {
      await first.close();
      firstOpen = false;
      const hits = await searchEntries(second.cairn.domain, b.access, { query: 'feed the starter daily', limit: 5 });
      assert.deepEqual(
        hits.map((h) => h.entry.title),
        ['Sourdough starter'],
      );
      const guidance = await getGuidance(second.cairn.domain, b.access, { task: 'feed the sourdough starter' });
      assert.deepEqual(
        guidance.levels.flatMap((l) => l.items.map((i) => i.entry.title)),
        ['Sourdough starter'],
      );
      assert.ok(held(second).domain.ruleWords > 0, 'its own caches fill');
    });
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { contentHash } from '../domain/similarity.js';
import { forEachBackend } from '../testing/backends.js';
import { startTestCairn } from '../testing/test-cairn.js';
import { testEntry } from '../testing/test-entry.js';
import { ACCESS_TABLES } from './access-tables.js';

// The database as it was before 0012_datapack_entry_stats (and so before 0013_access_epoch): their
// triggers, functions, table and columns gone, and neither applied.
const before0013 = {
  sqlite: ACCESS_TABLES.flatMap(([table]) =>
    ['insert', 'update', 'delete'].map((event) => `DROP TRIGGER access_epoch_${table}_${event}`),
  ),
  postgres: [
    ...ACCESS_TABLES.map(([table]) => `DROP TRIGGER access_epoch ON "${table}"`),
    'DROP FUNCTION bump_access_epoch',
  ],
};
const before0012 = {
  sqlite: [
    ...before0013.sqlite,
    'DROP TRIGGER entry_stats_insert',
    'DROP TRIGGER entry_stats_update',
    'DROP TRIGGER entry_stats_delete',
  ],
  postgres: [
    ...before0013.postgres,
    'DROP TRIGGER entry_stats_insert ON entry',
    'DROP TRIGGER entry_stats_update ON entry',
    'DROP TRIGGER entry_stats_delete ON entry',
    'DROP FUNCTION entry_stats_insert',
    'DROP FUNCTION entry_stats_update',
    'DROP FUNCTION entry_stats_delete',
  ],
};

forEachBackend(({ name: backend, skip, options }) => {
  test(`${backend}: datapacks made before entry counts were kept are counted on upgrade, and search and listing read the count`, {
    skip,
  }, async () => {
    const server = await startTestCairn(options);
    const { store } = server.cairn;
    try {
      for (const statement of [
        // 0014_guidance came later: undone first.
        'DROP INDEX entry_applies',
        'DROP INDEX entry_replaced',
        'ALTER TABLE entry DROP COLUMN applies',
        'ALTER TABLE entry DROP COLUMN supersedes',
        'ALTER TABLE entry DROP COLUMN replaced_by',
        "DELETE FROM cairn_migration WHERE name = '0014_guidance'",
        ...before0012[backend],
        'ALTER TABLE datapack DROP COLUMN live_entries',
        'ALTER TABLE datapack DROP COLUMN entry_revision',
        'DROP TABLE access_epoch',
        // Later migrations too: a database that old had none of them.
        'ALTER TABLE api_key DROP COLUMN client_name',
        'ALTER TABLE oauth_client_use DROP COLUMN client_name',
        'DROP TABLE rule_usage_answer',
        'ALTER TABLE entry_version DROP COLUMN applies',
        'DROP INDEX entry_expires',
        'ALTER TABLE entry DROP COLUMN owner_id',
        'ALTER TABLE entry DROP COLUMN review_by',
        'ALTER TABLE entry DROP COLUMN expires',
        'ALTER TABLE entry_version DROP COLUMN lifecycle',
        "DELETE FROM cairn_migration WHERE name IN ('0012_datapack_entry_stats', '0013_access_epoch', '0016_client_names', '0017_rule_usage', '0018_lifecycle_version_applies', '0019_rule_lifecycle')",
      ]) {
        await sql.raw(statement).execute(store.db);
      }
      const at = '2026-01-01T00:00:00.000Z';
      for (const id of ['dpk_full', 'dpk_empty']) {
        await store.insertDatapack({
          id,
          scope: 'personal',
          ownerId: 'u_owner',
          organizationId: null,
          name: id,
          description: '',
          createdBy: 'u',
          createdAt: at,
          updatedAt: at,
        });
      }
      const entry = (id: string, content: string, deletedAt: string | null) =>
        testEntry({
          id,
          datapackId: 'dpk_full',
          title: 'Canary notes',
          content,
          contentHash: contentHash(id, content),
          updatedAt: at,
          deletedAt,
        });
      await store.insertEntry(entry('ent_a', 'Roll back the canary first.', null));
      await store.insertEntry(entry('ent_b', 'Canary at five percent.', null));
      await store.insertEntry(entry('ent_gone', 'An old canary plan.', at));
      await store.migrate();
      const listed = await store.listDatapacks([{ scope: 'personal', ownerId: 'u_owner' }]);
      assert.deepEqual(Object.fromEntries(listed.map((d) => [d.id, d.entryCount])), { dpk_full: 2, dpk_empty: 0 });
      const hits = await store.rankedEntries({ datapackIds: ['dpk_full', 'dpk_empty'], text: 'canary', limit: 5 });
      assert.deepEqual(hits.map((h) => h.entry.id).sort(), ['ent_a', 'ent_b']);
      await store.insertEntry({ ...entry('ent_c', 'A canary in every region.', null), datapackId: 'dpk_empty' });
      assert.equal(
        (await store.rankedEntries({ datapackIds: ['dpk_full', 'dpk_empty'], text: 'canary', limit: 5 })).length,
        3,
      );
    } finally {
      await server.close();
    }
  });
});

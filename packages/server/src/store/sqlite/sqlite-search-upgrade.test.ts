import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { contentHash } from '../../domain/similarity.js';
import { testEntry } from '../../testing/test-entry.js';
import { ACCESS_TABLES } from '../access-tables.js';
import { sqliteMigrations } from './sqlite-migrations.js';
import { openSqliteDatabase, SqliteStore } from './sqlite-store.js';

test('SQLite: entries written before the per-datapack search index are found after the upgrade, and only in their datapack', async () => {
  const store = new SqliteStore(openSqliteDatabase(':memory:'));
  try {
    const migrator = new Migrator({
      db: store.db,
      provider: { getMigrations: async () => sqliteMigrations },
      migrationTableName: 'cairn_migration',
      migrationLockTableName: 'cairn_migration_lock',
    });
    const { error } = await migrator.migrateTo('0004_invites');
    assert.equal(error, undefined);
    // better-auth's tables, which every real start creates before Cairn's later migrations (0013 adds triggers to them; Cairn's own exist by now).
    for (const [table] of ACCESS_TABLES)
      await sql.raw(`CREATE TABLE IF NOT EXISTS "${table}" (id TEXT PRIMARY KEY)`).execute(store.db);
    const at = '2026-01-01T00:00:00.000Z';
    for (const id of ['dpk_old', 'dpk_other']) {
      await store.insertDatapack({
        id,
        scope: 'personal',
        ownerId: `u_${id}`,
        organizationId: null,
        name: id,
        description: '',
        createdBy: 'u',
        createdAt: at,
        updatedAt: at,
      });
    }
    const entry = (id: string, datapackId: string) =>
      testEntry({
        id,
        datapackId,
        title: 'Rollback plan',
        content: 'Roll back the canary first.',
        contentHash: contentHash(id, 'x'),
        updatedAt: at,
      });
    await store.insertEntry(entry('ent_old', 'dpk_old'));
    await store.insertEntry(entry('ent_other', 'dpk_other'));
    await store.migrate();
    const hits = await store.rankedEntries({ datapackIds: ['dpk_old'], text: 'canary rollback', limit: 5 });
    assert.deepEqual(
      hits.map((h) => h.entry.id),
      ['ent_old'],
    );
    // Writes after the upgrade keep the index in step through the new triggers.
    await store.insertEntry({ ...entry('ent_new', 'dpk_old'), title: 'Canary sizes', contentHash: 'h2' });
    assert.deepEqual(
      (await store.rankedEntries({ datapackIds: ['dpk_old'], text: 'canary', limit: 5 })).map((h) => h.entry.id).sort(),
      ['ent_new', 'ent_old'],
    );
  } finally {
    await store.close();
  }
});

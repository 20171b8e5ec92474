import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { forEachBackend } from '../testing/backends.js';
import { postgresTestUrl } from '../testing/postgres.js';
import { startTestCairn } from '../testing/test-cairn.js';
import { testEntry } from '../testing/test-entry.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { preparedQuery } from './prepared-query.js';

const target = postgresTestUrl();
const at = '2026-01-01T00:00:00.000Z';

forEachBackend(({ name: backend, skip, options }) => {
  const start = () => startTestCairn(options);

  test(`${backend}: a prepared query answers each call for its own values, whatever the lengths of its lists`, {
    skip,
  }, async () => {
    const server = await start();
    const { store } = server.cairn;
    try {
      for (const pack of ['dpk_a', 'dpk_b']) {
        await store.insertDatapack({
          id: pack,
          scope: 'personal',
          ownerId: 'u_owner',
          organizationId: null,
          name: pack,
          description: '',
          createdBy: 'u',
          createdAt: at,
          updatedAt: at,
        });
      }
      const ids = Array.from({ length: 80 }, (_, i) => `ent_${String(i).padStart(2, '0')}`);
      for (const [i, id] of ids.entries()) {
        await store.insertEntry(
          testEntry({
            id,
            datapackId: i % 2 ? 'dpk_b' : 'dpk_a',
            title: `t${i}`,
            content: `c${i}`,
            contentHash: `h${i}`,
            updatedAt: at,
          }),
        );
      }
      const { db } = store;
      const prepared = preparedQuery(db, 'test', (pack: string, wanted: readonly string[], limit: number) =>
        db
          .selectFrom('entry')
          .select(['id', 'title'])
          .where('datapack_id', '=', pack)
          .where('id', 'in', wanted)
          .orderBy('id')
          .limit(limit),
      );
      const plain = (pack: string, wanted: readonly string[], limit: number) =>
        db
          .selectFrom('entry')
          .select(['id', 'title'])
          .where('datapack_id', '=', pack)
          .where('id', 'in', wanted)
          .orderBy('id')
          .limit(limit)
          .execute();
      // The same shape again with other values, then every list length from 1 to 80: more shapes than are kept.
      const calls: [string, string[], number][] = [
        ['dpk_a', ids.slice(0, 10), 3],
        ['dpk_b', ids.slice(0, 10), 5],
        ['dpk_a', ids.slice(40, 50), 100],
        ...ids.map((_, n): [string, string[], number] => [
          n % 3 ? 'dpk_a' : 'dpk_b',
          ids.slice(80 - n - 1),
          1 + (n % 7),
        ]),
      ];
      for (const [pack, wanted, limit] of calls) {
        const want = await plain(pack, wanted, limit);
        assert.ok(want.length > 0, 'each call finds something');
        assert.deepEqual(await prepared(pack, wanted, limit), want, `${pack} ${wanted.length} ids, limit ${limit}`);
      }
    } finally {
      await server.close();
    }
  });

  test(`${backend}: a query that uses an argument as anything but a value is refused when first compiled`, {
    skip,
  }, async () => {
    const server = await start();
    const { db } = server.cairn.store;
    try {
      // The argument names a column: it would be compiled into the SQL text, not bound.
      const byColumn = preparedQuery(db, 'by column', (column: string) =>
        db
          .selectFrom('entry')
          .select('id')
          .orderBy(column as 'id'),
      );
      await assert.rejects(byColumn('title'), /prepared query by column: an argument did not become a parameter/);
      // The argument is dropped: the query would answer the same for every value.
      const ignored = preparedQuery(db, 'ignored', (_id: string) => db.selectFrom('entry').select('id'));
      await assert.rejects(ignored('ent_1'), /prepared query ignored/);
    } finally {
      await server.close();
    }
  });
});

test('postgres: prepared queries run as named statements, and one planned before its table changed shape still answers', {
  skip: 'skip' in target ? target.skip : undefined,
}, async () => {
  const server = await startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' });
  // A store of one connection: the statements listed are those of the connection that ran the reads.
  const single = new PostgresStore(new pg.Pool({ connectionString: server.cairn.config.databaseUrl, max: 1 }));
  try {
    await single.insertDatapack({
      id: 'dpk_n',
      scope: 'personal',
      ownerId: 'u_owner',
      organizationId: null,
      name: 'Notes',
      description: '',
      createdBy: 'u',
      createdAt: at,
      updatedAt: at,
    });
    assert.equal((await single.getDatapack('dpk_n'))?.name, 'Notes');
    const { rows } = await sql<{
      name: string;
      statement: string;
    }>`SELECT name, statement FROM pg_prepared_statements`.execute(single.db);
    assert.ok(
      rows.some((r) => r.name.startsWith('cairn_') && r.statement.includes('from "datapack"')),
      `a named statement reads datapacks: ${JSON.stringify(rows)}`,
    );
    await sql`ALTER TABLE datapack ADD COLUMN later_column integer`.execute(server.cairn.store.db);
    assert.equal((await single.getDatapack('dpk_n'))?.name, 'Notes');
  } finally {
    await single.close();
    await server.close();
  }
});

// The copies of the migrated template (postgres-template.ts) that test Cairns start on must be what an
// empty database is once a Cairn has started on it: the same tables, columns, indexes and triggers, and
// none of the first start's own rows (its auth secret, its OAuth resource).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, postgresTestUrl } from './postgres.js';
import { createMigratedTestDatabase } from './postgres-template.js';
import { startTestCairn } from './test-cairn.js';

const target = postgresTestUrl();

/** Every table and column, index, trigger and recorded migration: what tells two schemas apart. */
async function schemaOf(
  url: string,
): Promise<{ columns: string[]; indexes: string[]; triggers: string[]; migrations: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const list = async (query: string) => (await client.query<{ x: string }>(query)).rows.map((r) => r.x);
    return {
      columns: await list(
        `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS x
         FROM information_schema.columns WHERE table_schema = 'public' ORDER BY x`,
      ),
      indexes: await list(`SELECT indexdef AS x FROM pg_indexes WHERE schemaname = 'public' ORDER BY x`),
      triggers: await list(
        `SELECT event_object_table || ' ' || trigger_name || ' ' || event_manipulation AS x
         FROM information_schema.triggers ORDER BY x`,
      ),
      migrations: await list('SELECT name AS x FROM cairn_migration ORDER BY name'),
    };
  } finally {
    await client.end();
  }
}

async function rows(url: string, query: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query)).rows;
  } finally {
    await client.end();
  }
}

describe('a copy of the migrated template', { skip: 'skip' in target ? target.skip : undefined }, () => {
  const serverUrl = (target as { url: string }).url;
  const made: { drop(): Promise<void> }[] = [];
  let copy: { url: string };
  let fresh: { url: string };

  before(async () => {
    copy = await createMigratedTestDatabase(serverUrl);
    fresh = await createTestDatabase(serverUrl);
    made.push(copy as never, fresh as never);
    // The reference: an empty database that a Cairn migrates at its first start.
    const started = await startTestCairn({ databaseUrl: fresh.url });
    await started.close();
  });
  after(async () => {
    for (const database of made) await database.drop();
  });

  test('has the schema and the migrations of an empty database a Cairn has started on', async () => {
    const [ofCopy, ofFresh] = [await schemaOf(copy.url), await schemaOf(fresh.url)];
    assert.ok(ofCopy.migrations.includes('0001_core'), ofCopy.migrations.join(' '));
    assert.ok(ofCopy.columns.some((c) => c.startsWith('entry.content ')));
    assert.deepEqual(ofCopy, ofFresh);
  });

  test("holds none of the first start's rows: each Cairn makes its own auth secret and OAuth resource", async () => {
    assert.deepEqual(await rows(copy.url, 'SELECT name FROM cairn_setting'), []);
    assert.deepEqual(await rows(copy.url, 'SELECT identifier FROM "oauthResource"'), []);
    assert.deepEqual(await rows(copy.url, 'SELECT epoch FROM access_epoch'), [{ epoch: '0' }]);
  });

  test('two Cairns on two copies do not share an auth secret', async () => {
    const [a, b] = [
      await startTestCairn({ postgresServerUrl: serverUrl }),
      await startTestCairn({ postgresServerUrl: serverUrl }),
    ];
    try {
      const secret = (c: typeof a) =>
        rows(c.cairn.config.databaseUrl!, `SELECT value FROM cairn_setting WHERE name = 'auth_secret'`);
      const [ofA, ofB] = [await secret(a), await secret(b)];
      assert.equal(ofA.length, 1);
      assert.notDeepEqual(ofA, ofB);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

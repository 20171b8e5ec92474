/**
 * Fills a benchmark database with other tenants' entries, fast: a bulk path that writes `entry`
 * rows directly (in transactions of a few thousand rows on SQLite, multi-row INSERTs on
 * PostgreSQL), skipping the domain layer's duplicate check and the version history. The full-text
 * index is kept by the database itself (FTS5 triggers, the generated tsvector column), as for any
 * write. Each other tenant gets a personal datapack of `perTenant` entries drawn from LoCoMo
 * turns, so their words overlap the benchmarked user's on purpose.
 */
import { sql } from 'kysely';
import { contentHash } from '../src/domain/similarity.js';
import type { KyselyStore } from '../src/store/kysely-store.js';
import type { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

export interface OtherTurn {
  title: string;
  content: string;
}

const PG_ROWS_PER_INSERT = 500;
const SQLITE_ROWS_PER_TRANSACTION = 5000;

/** Entries in the whole database (every tenant, live or not). */
export async function countAllEntries(store: KyselyStore): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n FROM entry`.execute(store.db);
  return Number(rows[0]!.n);
}

/** Adds other tenants' entries until the database holds `total`; reports progress as it goes. */
export async function seedOthers(
  store: KyselyStore,
  total: number,
  turns: OtherTurn[],
  perTenant: number,
  progress: (done: number, goal: number) => void,
): Promise<number> {
  let count = await countAllEntries(store);
  const goal = total - count;
  if (goal <= 0) return count;
  let done = 0;
  let tenant = 0;
  const at = new Date('2025-01-01T00:00:00Z').getTime();
  while (done < goal) {
    const packId = `dpk_bench_other_${count}_${tenant++}`;
    const owner = `bench-other-${packId}`;
    const now = new Date(at).toISOString();
    await store.db
      .insertInto('datapack')
      .values({
        id: packId,
        scope: 'personal',
        owner_id: owner,
        organization_id: null,
        name: 'Bench',
        description: '',
        created_by: owner,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const n = Math.min(perTenant, goal - done);
    await insertEntryRows(
      store,
      Array.from({ length: n }, (_, i) => {
        const turn = turns[(done + i) % turns.length]!;
        // A counter in the text keeps content hashes distinct, as real entries are.
        return {
          id: `ent_bench_${count + done + i}`,
          datapack: packId,
          owner,
          title: turn.title,
          content: `${turn.content} (${done + i})`,
          stamp: new Date(at + (done + i) * 1000).toISOString(),
        };
      }),
    );
    done += n;
    progress(done, goal);
  }
  if (store.dialect === 'postgres') await sql`ANALYZE entry`.execute(store.db);
  count = await countAllEntries(store);
  return count;
}

/** One entry of the bulk path: a conversation turn, version 1, untagged. */
export interface BulkEntry {
  id: string;
  datapack: string;
  owner: string;
  title: string;
  content: string;
  stamp: string;
}

/** Writes entry rows directly (the database keeps its full-text index and datapack counts itself). */
export async function insertEntryRows(store: KyselyStore, entries: BulkEntry[]): Promise<void> {
  const rows = entries.map((e) => ({
    id: e.id,
    datapack_id: e.datapack,
    kind: 'conversation',
    title: e.title,
    content: e.content,
    tags: '[]',
    content_hash: contentHash(e.title, e.content),
    version: 1,
    created_by: e.owner,
    created_client: null,
    created_at: e.stamp,
    updated_by: e.owner,
    updated_client: null,
    updated_at: e.stamp,
    deleted_at: null,
  }));
  if (rows.length === 0) return;
  if (store.dialect === 'sqlite') insertSqlite(store as SqliteStore, rows);
  else
    for (let i = 0; i < rows.length; i += PG_ROWS_PER_INSERT)
      await store.db
        .insertInto('entry')
        .values(rows.slice(i, i + PG_ROWS_PER_INSERT))
        .execute();
}

function insertSqlite(store: SqliteStore, rows: Record<string, unknown>[]): void {
  const columns = Object.keys(rows[0]!);
  const insert = store.database.prepare(
    `INSERT INTO entry (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  );
  const many = store.database.transaction((batch: Record<string, unknown>[]) => {
    for (const row of batch) insert.run(row);
  });
  for (let i = 0; i < rows.length; i += SQLITE_ROWS_PER_TRANSACTION)
    many(rows.slice(i, i + SQLITE_ROWS_PER_TRANSACTION));
}

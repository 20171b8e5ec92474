import type { Kysely } from 'kysely';
import { ENTRY_COLUMNS } from './hot-queries.js';
import { toEntry } from './row-mappers.js';
import type { Database } from './schema.js';
import type { Entry } from './types.js';

/** Live, unreplaced entries of these datapacks that say where they apply (the partial index entry_applies). */
export async function annotatedEntries(db: Kysely<Database>, datapackIds: string[]): Promise<Entry[]> {
  if (datapackIds.length === 0) return [];
  const rows = await db
    .selectFrom('entry')
    .select(ENTRY_COLUMNS)
    .where('datapack_id', 'in', datapackIds)
    .where('applies', 'is not', null)
    .where('deleted_at', 'is', null)
    .where('replaced_by', 'is', null)
    .execute();
  return rows.map(toEntry);
}

/** Live entries of these datapacks that another entry replaced, most recently changed first. */
export async function replacedEntries(db: Kysely<Database>, datapackIds: string[], limit: number): Promise<Entry[]> {
  if (datapackIds.length === 0) return [];
  const rows = await db
    .selectFrom('entry')
    .select(ENTRY_COLUMNS)
    .where('datapack_id', 'in', datapackIds)
    .where('replaced_by', 'is not', null)
    .where('deleted_at', 'is', null)
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toEntry);
}

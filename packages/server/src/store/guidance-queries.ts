import type { Kysely } from 'kysely';
import { entriesIn } from './entry-queries.js';
import type { Database } from './schema.js';
import type { Entry } from './types.js';

/** Live, unreplaced entries of these datapacks that say where they apply (the partial index entry_applies). */
export function annotatedEntries(db: Kysely<Database>, datapackIds: string[]): Promise<Entry[]> {
  return entriesIn(db, datapackIds, (q) =>
    q.where('applies', 'is not', null).where('deleted_at', 'is', null).where('replaced_by', 'is', null),
  );
}

/** Live, unreplaced entries of these kinds in these datapacks, most recently changed first, at most `limit`: a rulebook to rank. */
export function ruleEntries(
  db: Kysely<Database>,
  datapackIds: string[],
  kinds: readonly string[],
  limit: number,
): Promise<Entry[]> {
  return entriesIn(db, datapackIds, (q) =>
    q
      .where('kind', 'in', kinds)
      .where('deleted_at', 'is', null)
      .where('replaced_by', 'is', null)
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .limit(limit),
  );
}

/** Live entries of these datapacks that another entry replaced, most recently changed first. */
export function replacedEntries(db: Kysely<Database>, datapackIds: string[], limit: number): Promise<Entry[]> {
  return entriesIn(db, datapackIds, (q) =>
    q
      .where('replaced_by', 'is not', null)
      .where('deleted_at', 'is', null)
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .limit(limit),
  );
}

/** Live entries of these datapacks whose expiry date is before `day` (YYYY-MM-DD), latest expiry first. */
export function expiredEntries(
  db: Kysely<Database>,
  datapackIds: string[],
  day: string,
  limit: number,
): Promise<Entry[]> {
  return entriesIn(db, datapackIds, (q) =>
    q
      .where('expires', 'is not', null)
      .where('expires', '<', day)
      .where('deleted_at', 'is', null)
      .orderBy('expires', 'desc')
      .orderBy('id')
      .limit(limit),
  );
}

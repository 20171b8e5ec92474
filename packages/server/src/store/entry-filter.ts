import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { ENTRY_COLUMNS } from './hot-queries.js';
import { toEntry } from './row-mappers.js';
import type { Database } from './schema.js';
import type { Entry } from './types.js';

/** Which live entries a tag or author filter lets through, before any ranking. */
export interface EntryFilter {
  datapackIds: string[];
  kinds?: string[];
  /** Every one of these tags (lower case, as stored). */
  tags?: string[];
  /** Saved or last changed by this user id. */
  author?: string;
}

/**
 * The ids of the live entries of these datapacks that pass the filter. Tags are stored as JSON
 * text on both backends: SQL narrows by the quoted tag, then each row's parsed tags decide.
 */
export async function filteredEntryIds(db: Kysely<Database>, filter: EntryFilter): Promise<Set<string>> {
  if (filter.datapackIds.length === 0) return new Set();
  let q = db
    .selectFrom('entry')
    .select(['id', 'tags'])
    .where('datapack_id', 'in', filter.datapackIds)
    .where('deleted_at', 'is', null);
  if (filter.kinds?.length) q = q.where('kind', 'in', filter.kinds);
  const { tags = [] } = filter;
  const rows = await narrowed(q, filter).execute();
  return new Set(rows.filter((r) => tags.every((t) => parseTags(r.tags).includes(t))).map((r) => r.id));
}

/**
 * The live entries of these datapacks that pass the filter, most recently changed first, at most
 * `limit` (a search with filters and no words); replaced ones only with `includeReplaced`.
 */
export async function filteredEntries(
  db: Kysely<Database>,
  filter: EntryFilter & { includeReplaced?: boolean },
  limit: number,
): Promise<Entry[]> {
  if (filter.datapackIds.length === 0) return [];
  let q = db
    .selectFrom('entry')
    .select(ENTRY_COLUMNS)
    .where('datapack_id', 'in', filter.datapackIds)
    .where('deleted_at', 'is', null);
  if (filter.kinds?.length) q = q.where('kind', 'in', filter.kinds);
  if (!filter.includeReplaced) q = q.where('replaced_by', 'is', null);
  const { tags = [] } = filter;
  // The quoted-tag LIKE is exact but for escapes: a few more rows than asked cover the rare false match.
  const rows = await narrowed(q, filter)
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(limit + 20)
    .execute();
  return rows
    .filter((r) => tags.every((t) => parseTags(r.tags).includes(t)))
    .slice(0, limit)
    .map(toEntry);
}

function narrowed<Q extends { where: (...a: any[]) => Q }>(q: Q, filter: EntryFilter): Q {
  const { author, tags = [] } = filter;
  if (author)
    q = q.where((eb: ExpressionBuilder<Database, 'entry'>) =>
      eb.or([eb('created_by', '=', author), eb('updated_by', '=', author)]),
    );
  // '!' escapes LIKE's wildcards: a backslash would clash with JSON's own escapes.
  for (const tag of tags)
    q = q.where(sql<boolean>`tags like ${`%${JSON.stringify(tag).replace(/[!%_]/g, '!$&')}%`} escape '!'`);
  return q;
}

function parseTags(raw: string): string[] {
  const parsed: unknown = JSON.parse(raw);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

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
  const { author, tags = [] } = filter;
  if (author) q = q.where((eb) => eb.or([eb('created_by', '=', author), eb('updated_by', '=', author)]));
  // '!' escapes LIKE's wildcards: a backslash would clash with JSON's own escapes.
  for (const tag of tags)
    q = q.where(sql<boolean>`tags like ${`%${JSON.stringify(tag).replace(/[!%_]/g, '!$&')}%`} escape '!'`);
  const rows = await q.execute();
  return new Set(rows.filter((r) => tags.every((t) => parseTags(r.tags).includes(t))).map((r) => r.id));
}

function parseTags(raw: string): string[] {
  const parsed: unknown = JSON.parse(raw);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

import type { Insertable, Selectable } from 'kysely';
import type { ENTRY_COLUMNS } from './hot-queries.js';
import type { Database } from './schema.js';
import type { ApiKeyRecord, Applies, Datapack, Entry, EntryVersion, Lifecycle, TrashedDatapack } from './types.js';

// Stored rows to domain records and back, shared by the store and its transfer queries.

type EntryRow = Selectable<Database['entry']>;

/** Postgres returns Date for timestamptz, SQLite the stored string; the domain always sees ISO strings. */
export function iso(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}

/** Maps a stored entry row to the domain record. */
export function toEntry(r: Pick<EntryRow, (typeof ENTRY_COLUMNS)[number]>): Entry {
  return {
    id: r.id,
    datapackId: r.datapack_id,
    kind: r.kind,
    title: r.title,
    content: r.content,
    tags: parseTags(r.tags),
    contentHash: r.content_hash,
    version: Number(r.version),
    createdBy: r.created_by,
    createdClient: r.created_client,
    createdAt: iso(r.created_at),
    updatedBy: r.updated_by,
    updatedClient: r.updated_client,
    updatedAt: iso(r.updated_at),
    deletedAt: r.deleted_at ? iso(r.deleted_at) : null,
    // Only when set: most entries say nothing about where they apply, and records stay as they were.
    ...(r.applies && { applies: JSON.parse(r.applies) as Applies }),
    ...(r.supersedes && r.supersedes !== '[]' && { supersedes: parseTags(r.supersedes) }),
    ...(r.replaced_by && { replacedBy: r.replaced_by }),
    ...(r.owner_id && { owner: r.owner_id }),
    ...(r.review_by && { reviewBy: r.review_by }),
    ...(r.expires && { expires: r.expires }),
  };
}

/** Maps an entry to its stored row. */
export function toEntryRow(e: Entry): Insertable<Database['entry']> & { id: string } {
  return {
    id: e.id,
    datapack_id: e.datapackId,
    kind: e.kind,
    title: e.title,
    content: e.content,
    tags: JSON.stringify(e.tags),
    content_hash: e.contentHash,
    version: e.version,
    created_by: e.createdBy,
    created_client: e.createdClient,
    created_at: e.createdAt,
    updated_by: e.updatedBy,
    updated_client: e.updatedClient,
    updated_at: e.updatedAt,
    deleted_at: e.deletedAt,
    // Written when the record names them (null clears): a record without them leaves the columns' defaults.
    ...('applies' in e && { applies: e.applies ? JSON.stringify(e.applies) : null }),
    ...('supersedes' in e && { supersedes: JSON.stringify(e.supersedes ?? []) }),
    ...('replacedBy' in e && { replaced_by: e.replacedBy ?? null }),
    ...('owner' in e && { owner_id: e.owner ?? null }),
    ...('reviewBy' in e && { review_by: e.reviewBy ?? null }),
    ...('expires' in e && { expires: e.expires ?? null }),
  };
}

/** Maps an entry to the history row of one of its versions. */
export function toVersionRow(e: Entry, change: EntryVersion['change']): Insertable<Database['entry_version']> {
  return {
    entry_id: e.id,
    version: e.version,
    change,
    kind: e.kind,
    title: e.title,
    content: e.content,
    tags: JSON.stringify(e.tags),
    changed_by: e.updatedBy,
    changed_client: e.updatedClient,
    changed_at: change === 'delete' && e.deletedAt ? e.deletedAt : e.updatedAt,
    // Written as toEntryRow writes it: only when the record says (an entry built before applies existed does not).
    ...('applies' in e && { applies: JSON.stringify(e.applies ?? null) }),
    ...(hasLifecycle(e) && { lifecycle: JSON.stringify(lifecycleOf(e)) }),
  };
}

/** Maps a stored history row to the domain record. */
export function toVersion(r: Selectable<Database['entry_version']>): EntryVersion {
  return {
    entryId: r.entry_id,
    version: r.version,
    change: r.change,
    kind: r.kind,
    title: r.title,
    content: r.content,
    tags: parseTags(r.tags),
    changedBy: r.changed_by,
    changedClient: r.changed_client,
    changedAt: iso(r.changed_at),
    restoredFrom: r.restored_from === null ? null : Number(r.restored_from),
    ...(r.applies !== null && { applies: JSON.parse(r.applies) as Applies | null }),
    ...(r.lifecycle != null && { lifecycle: JSON.parse(r.lifecycle) as Lifecycle }),
  };
}

/** Whether the record names any of its lifecycle (an entry built before lifecycles existed does not). */
function hasLifecycle(e: Entry): boolean {
  return 'owner' in e || 'reviewBy' in e || 'expires' in e;
}

/** An entry's lifecycle as its version keeps it. */
export function lifecycleOf(e: Entry): Lifecycle {
  return { owner: e.owner ?? null, reviewBy: e.reviewBy ?? null, expires: e.expires ?? null };
}

/** Maps a stored datapack row to the domain record. */
export function toDatapack(r: Selectable<Database['datapack']>): Datapack {
  return {
    id: r.id,
    scope: r.scope,
    ownerId: r.owner_id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    createdBy: r.created_by,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    ...(r.deleted_at && { deletedAt: iso(r.deleted_at), deletedBy: r.deleted_by }),
  };
}

/** Maps a trashed datapack row, with its entry count, to the domain record. */
export function toTrashedDatapack(
  r: Selectable<Database['datapack']> & { entry_count: number | string | null },
): TrashedDatapack {
  return {
    ...toDatapack(r),
    deletedAt: iso(r.deleted_at!),
    deletedBy: r.deleted_by ?? '',
    entryCount: Number(r.entry_count ?? 0),
  };
}

/** Maps a stored API key row to the domain record. */
export function toApiKey(r: Selectable<Database['api_key']>): ApiKeyRecord {
  return {
    id: r.id,
    userId: r.user_id,
    name: r.name,
    start: r.start,
    last4: r.last4,
    scope: r.scope,
    createdAt: iso(r.created_at),
    expiresAt: r.expires_at ? iso(r.expires_at) : null,
    revokedAt: r.revoked_at ? iso(r.revoked_at) : null,
    lastUsedAt: r.last_used_at ? iso(r.last_used_at) : null,
    lastUsedClient: r.last_used_client,
  };
}

/** Reads a stored tags column (a JSON array). */
export function parseTags(raw: string): string[] {
  const parsed: unknown = JSON.parse(raw);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

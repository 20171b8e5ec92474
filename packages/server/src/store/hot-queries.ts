import type { ExpressionBuilder, Kysely } from 'kysely';
import { preparedQuery } from './prepared-query.js';
import type { Database } from './schema.js';
import type { OwnerRef, Scope } from './types.js';

/** Columns of `entry` in the order the mappers expect; never `*`, the SQLite table has an extra rowid column. */
export const ENTRY_COLUMNS = [
  'id',
  'datapack_id',
  'kind',
  'title',
  'content',
  'tags',
  'content_hash',
  'version',
  'created_by',
  'created_client',
  'created_at',
  'updated_by',
  'updated_client',
  'updated_at',
  'deleted_at',
  'applies',
  'supersedes',
  'replaced_by',
  'owner_id',
  'review_by',
  'expires',
] as const;

type DatapackScope = ExpressionBuilder<Database & { d: Database['datapack'] }, 'd'>;

/** Owners as the two lists of one length that ownedBy and the prepared queries take (a prepared query's lists are of values). */
export function ownerColumns(owners: readonly OwnerRef[]): [scopes: Scope[], ownerIds: string[]] {
  return [owners.map((o) => o.scope), owners.map((o) => o.ownerId)];
}

/** Datapacks owned by any of these owners, given as two lists of one length (scope i with owner i). */
export function ownedBy(eb: DatapackScope, scopes: readonly Scope[], ownerIds: readonly string[]) {
  return eb.or(scopes.map((scope, i) => eb.and([eb('d.scope', '=', scope), eb('d.owner_id', '=', ownerIds[i]!)])));
}

/**
 * The queries every MCP call or search runs (the credential, the caller's reach, the pool's freshness,
 * the hits), compiled once per shape (prepared-query.ts): each request then only binds its values.
 */
export function hotQueries(db: Kysely<Database>) {
  return {
    accessEpoch: preparedQuery(db, 'accessEpoch', () =>
      db.selectFrom('access_epoch').select('epoch').where('id', '=', 1),
    ),
    apiKeyByHash: preparedQuery(db, 'apiKeyByHash', (hash: string) =>
      db.selectFrom('api_key').selectAll().where('key_hash', '=', hash),
    ),
    userById: preparedQuery(db, 'userById', (id: string) =>
      db.selectFrom('user').select(['id', 'email', 'name']).where('id', '=', id),
    ),
    organizationsOf: preparedQuery(db, 'organizationsOf', (userId: string) =>
      db
        .selectFrom('member')
        .innerJoin('organization', 'organization.id', 'member.organizationId')
        .select(['organization.id as id', 'organization.name as name', 'member.role as role'])
        .where('member.userId', '=', userId)
        .orderBy('organization.name'),
    ),
    teamsOf: preparedQuery(db, 'teamsOf', (userId: string) =>
      db
        .selectFrom('teamMember')
        .innerJoin('team', 'team.id', 'teamMember.teamId')
        // A team membership only counts while the organization membership behind it exists.
        .innerJoin('member', (join) =>
          join
            .onRef('member.organizationId', '=', 'team.organizationId')
            .onRef('member.userId', '=', 'teamMember.userId'),
        )
        .select(['team.id as id', 'team.name as name', 'team.organizationId as organizationId'])
        .where('teamMember.userId', '=', userId)
        .orderBy('team.name'),
    ),
    datapackById: preparedQuery(db, 'datapackById', (id: string) =>
      db.selectFrom('datapack').selectAll().where('id', '=', id).where('deleted_at', 'is', null),
    ),
    datapacksOwnedBy: preparedQuery(db, 'datapacksOwnedBy', (scopes: readonly Scope[], ownerIds: readonly string[]) =>
      db
        .selectFrom('datapack as d')
        .selectAll('d')
        .where((eb) => ownedBy(eb, scopes, ownerIds))
        .where('d.deleted_at', 'is', null),
    ),
    /** With each datapack's latest change: the count is the datapack's own (kept by triggers); the latest entry change is one seek in the (datapack_id, deleted_at, updated_at) index. */
    datapackSummaries: preparedQuery(db, 'datapackSummaries', (scopes: readonly Scope[], ownerIds: readonly string[]) =>
      db
        .selectFrom('datapack as d')
        .selectAll('d')
        .select((eb) => [
          eb
            .selectFrom('entry as e')
            .select((sub) => sub.fn.max('e.updated_at').as('m'))
            .whereRef('e.datapack_id', '=', 'd.id')
            .where('e.deleted_at', 'is', null)
            .as('last_entry_at'),
        ])
        .where((eb) => ownedBy(eb, scopes, ownerIds))
        .where('d.deleted_at', 'is', null),
    ),
    /** Live entries and change number of these datapacks, kept by triggers. */
    datapacksState: preparedQuery(db, 'datapacksState', (ids: readonly string[]) =>
      db
        .selectFrom('datapack')
        .select((eb) => [
          eb.fn.sum<number | string | null>('live_entries').as('n'),
          eb.fn.sum<number | string | null>('entry_revision').as('revision'),
        ])
        .where('id', 'in', ids),
    ),
    entryById: preparedQuery(db, 'entryById', (id: string) =>
      db.selectFrom('entry').select(ENTRY_COLUMNS).where('id', '=', id),
    ),
    entriesByIds: preparedQuery(db, 'entriesByIds', (ids: readonly string[]) =>
      db.selectFrom('entry').select(ENTRY_COLUMNS).where('id', 'in', ids),
    ),
    entryTexts: preparedQuery(db, 'entryTexts', (ids: readonly string[]) =>
      db.selectFrom('entry').select(['id', 'version', 'title', 'content', 'tags']).where('id', 'in', ids),
    ),
    entryByContentHash: preparedQuery(db, 'entryByContentHash', (datapackId: string, contentHash: string) =>
      db
        .selectFrom('entry')
        .select(ENTRY_COLUMNS)
        .where('datapack_id', '=', datapackId)
        .where('content_hash', '=', contentHash)
        .where('deleted_at', 'is', null)
        .limit(1),
    ),
    turnPlaces: preparedQuery(db, 'turnPlaces', (entryIds: readonly string[]) =>
      db
        .selectFrom('capture_turn')
        .select(['entry_id', 'session_id', 'speaker', 'created_at'])
        .where('entry_id', 'in', entryIds),
    ),
  };
}

export type HotQueries = ReturnType<typeof hotQueries>;

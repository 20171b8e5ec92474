/**
 * The tables whose changes move the access epoch (migration 0013, epoch-cache.ts), with the
 * columns whose update counts (undefined: any). Left out on purpose: a key's usage columns,
 * written every few seconds in batches, and a datapack's entry counts, kept by the entry triggers.
 * Column names are the migrations' own, written into trigger definitions as they are.
 */
export const ACCESS_TABLES: readonly (readonly [table: string, update: readonly string[] | undefined])[] = [
  [
    'api_key',
    ['id', 'user_id', 'name', 'start', 'last4', 'key_hash', 'scope', 'created_at', 'expires_at', 'revoked_at'],
  ],
  [
    'datapack',
    [
      'id',
      'scope',
      'owner_id',
      'organization_id',
      'name',
      'description',
      'created_by',
      'created_at',
      'updated_at',
      'deleted_at',
      'deleted_by',
    ],
  ],
  ['user', undefined],
  ['organization', undefined],
  ['member', undefined],
  ['team', undefined],
  ['teamMember', undefined],
];

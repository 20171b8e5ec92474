import type { SelectQueryBuilder } from 'kysely';

/** How many rows a query selects, e.g. `countRows(db.selectFrom('api_key').where('revoked_at', 'is', null))`: what a test compares before and after. */
export async function countRows(query: SelectQueryBuilder<any, any, any>): Promise<number> {
  const row = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

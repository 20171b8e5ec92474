import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** How many rows a table holds: what tests check "nothing was written" against. */
export async function countRows(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const { n } = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

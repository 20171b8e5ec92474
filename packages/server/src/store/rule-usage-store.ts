import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';

/** A rule as one guidance answer gave or named it. */
export interface RuleUsageItem {
  id: string;
  title: string;
  /** "always", "file: <glob>", "project: <name>", "topic", or for a named rule "may also apply". */
  reason: string;
}

/** One guidance answer, as recorded. */
export interface RuleUsageRecord {
  id: string;
  at: string;
  userId: string;
  organizationIds: string[];
  client: string | null;
  session: string | null;
  task: string;
  given: RuleUsageItem[];
  named: RuleUsageItem[];
}

export interface RuleUsageQuery {
  since: string;
  userId?: string;
  organizationId?: string;
}

type Row = Selectable<Database['rule_usage_answer']>;

export async function appendRuleUsage(db: Kysely<Database>, records: RuleUsageRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db
    .insertInto('rule_usage_answer')
    .values(
      records.map((r) => ({
        id: r.id,
        at: r.at,
        user_id: r.userId,
        organization_ids: `,${r.organizationIds.join(',')},`,
        client: r.client,
        session: r.session,
        task: r.task,
        given: JSON.stringify(r.given),
        named: JSON.stringify(r.named),
      })),
    )
    .execute();
}

export async function listRuleUsage(db: Kysely<Database>, q: RuleUsageQuery): Promise<RuleUsageRecord[]> {
  let query = db.selectFrom('rule_usage_answer').selectAll().where('at', '>=', q.since);
  if (q.userId !== undefined) query = query.where('user_id', '=', q.userId);
  if (q.organizationId !== undefined) query = query.where('organization_ids', 'like', `%,${q.organizationId},%`);
  return (await query.orderBy('at', 'asc').orderBy('id', 'asc').execute()).map(toRecord);
}

export async function getRuleUsage(db: Kysely<Database>, id: string): Promise<RuleUsageRecord | undefined> {
  const row = await db.selectFrom('rule_usage_answer').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export async function storedRuleUsageIds(db: Kysely<Database>, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('rule_usage_answer').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

export async function purgeRuleUsage(db: Kysely<Database>, before: string, batch: number): Promise<number> {
  const doomed = db.selectFrom('rule_usage_answer').select('id').where('at', '<', before).limit(batch);
  const result = await db.deleteFrom('rule_usage_answer').where('id', 'in', doomed).executeTakeFirst();
  return Number(result.numDeletedRows);
}

function toRecord(r: Row): RuleUsageRecord {
  return {
    id: r.id,
    // PostgreSQL hands timestamptz back as a Date.
    at: (r.at as unknown) instanceof Date ? (r.at as unknown as Date).toISOString() : r.at,
    userId: r.user_id,
    organizationIds: r.organization_ids.split(',').filter(Boolean),
    client: r.client,
    session: r.session,
    task: r.task,
    given: JSON.parse(r.given) as RuleUsageItem[],
    named: JSON.parse(r.named) as RuleUsageItem[],
  };
}

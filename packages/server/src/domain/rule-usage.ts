import type { RuleUsageRow } from '@cairn/contract';
import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import type { Logger } from '../log/logger.js';
import type { RuleUsageItem, RuleUsageRecord } from '../store/rule-usage-store.js';
import type { Access } from './access.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { type Guidance, reasonText } from './guidance-answer.js';
import { isExpired, today } from './lifecycle.js';
import { parse } from './parse-input.js';

export type { RuleUsageItem, RuleUsageRecord } from '../store/rule-usage-store.js';

const DAY_MS = 86_400_000;
const PURGE_BATCH = 1000;

/** Records a guidance answer (returns at once; written in the background). Never throws. */
export function recordGuidance(
  deps: DomainDeps,
  access: Access,
  g: Guidance,
  meta: { client?: string | null; session?: string | null } = {},
): void {
  try {
    const given: RuleUsageItem[] = [];
    for (const level of g.levels)
      for (const i of level.items) given.push({ id: i.entry.id, title: i.entry.title, reason: reasonText(i.reason) });
    const named = g.mayAlsoApply.map((i) => ({ id: i.entry.id, title: i.entry.title, reason: 'may also apply' }));
    deps.ruleUsage.push({
      id: `rua_${deps.newId('aud').slice(4)}`,
      at: deps.now(),
      userId: access.caller.userId,
      organizationIds: access.memberships.organizations.map((o) => o.id),
      client: (meta.client ?? access.caller.client)?.slice(0, 200) ?? null,
      session: meta.session?.slice(0, 200) ?? null,
      task: g.task,
      given,
      named,
    });
  } catch (error) {
    deps.ruleUsage.log.warn('could not record rule usage', { error: (error as Error).message });
  }
}

/** Where failed writes of these deps' rule usage are reported (the serving Cairn's log). */
export function useRuleUsageLog(deps: Pick<DomainDeps, 'ruleUsage'>, log: Logger): void {
  deps.ruleUsage.log = log;
}

/** Writes every recorded answer not yet written (tests, shutdown). */
export function flushRuleUsage(deps: Pick<DomainDeps, 'ruleUsage'>): Promise<void> {
  return deps.ruleUsage.flush();
}

export type { RuleUsageRow };

export const ruleUsageInput = z.object({
  datapack: z.string().min(1).optional(),
  days: z.number().int().min(1).max(3650).default(30),
});

/** Whose guidance answers someone sees: their own, and every answer given in the organizations they administer. */
export interface AnswerViewer {
  userId: string;
  adminOf: string[];
}

/** The caller as a viewer of answers: an organization's admin sees its members' answers; anyone else only their own. */
export function answerViewer(access: Access): AnswerViewer {
  const adminOf = access.memberships.organizations.filter((o) => access.isOrgAdmin(o.id)).map((o) => o.id);
  return { userId: access.caller.userId, adminOf };
}

/** The answers recorded since `since` that the viewer sees, each once (unordered). */
export async function answersSeenBy(deps: DomainDeps, viewer: AnswerViewer, since: string): Promise<RuleUsageRecord[]> {
  const byId = new Map<string, RuleUsageRecord>();
  for (const r of await deps.store.listRuleUsage({ since, userId: viewer.userId })) byId.set(r.id, r);
  for (const org of viewer.adminOf)
    for (const r of await deps.store.listRuleUsage({ since, organizationId: org })) byId.set(r.id, r);
  return [...byId.values()];
}

/** `GET /rules/usage`: every readable rule (optionally of one datapack), least given first, expired ones last. */
export async function ruleUsage(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof ruleUsageInput>,
): Promise<{ days: number; rules: RuleUsageRow[] }> {
  const input = parse(ruleUsageInput, raw);
  let packs = await readableDatapacks(deps, access);
  if (input.datapack !== undefined) {
    const key = input.datapack;
    packs = packs.filter((p) => p.id === key || p.name === key);
    if (packs.length === 0)
      throw new CairnError(
        'not_found',
        `No datapack "${key}" is visible to you; list your datapacks and pass one's id or name as datapack.`,
      );
  }
  const rules = await deps.store.ruleEntries(
    packs.map((p) => p.id),
    ['policy', 'standard', 'preference', 'decision', 'note'],
    5000,
  );
  const rows = new Map<string, RuleUsageRow & { clientSet: Set<string> }>();
  const day = today(deps);
  for (const e of rules)
    rows.set(e.id, {
      entryId: e.id,
      title: e.title,
      given: 0,
      named: 0,
      lastGivenAt: null,
      clients: [],
      expires: e.expires ?? null,
      expired: isExpired(e, day),
      clientSet: new Set(),
    });
  const since = new Date(Date.parse(deps.now()) - input.days * DAY_MS).toISOString();
  for (const a of await answersSeenBy(deps, answerViewer(access), since)) {
    for (const i of a.given) {
      const row = rows.get(i.id);
      if (!row) continue;
      row.given++;
      if (!row.lastGivenAt || a.at > row.lastGivenAt) row.lastGivenAt = a.at;
      if (a.client) row.clientSet.add(a.client);
    }
    for (const i of a.named) {
      const row = rows.get(i.id);
      if (row) row.named++;
    }
  }
  const out = [...rows.values()].map(({ clientSet, ...r }) => ({ ...r, clients: [...clientSet].sort() }));
  // An expired rule is not served: listed after the live ones, so "never given" first means something.
  out.sort(
    (a, b) =>
      Number(a.expired) - Number(b.expired) || a.given - b.given || a.named - b.named || a.title.localeCompare(b.title),
  );
  return { days: input.days, rules: out };
}

/** One answer's record (what was given and why): to its own user and the admins of an organization they were in. */
export async function ruleUsageAnswer(deps: DomainDeps, access: Access, id: string): Promise<RuleUsageRecord> {
  const r = await deps.store.getRuleUsage(id);
  const visible = r && (r.userId === access.caller.userId || r.organizationIds.some((o) => access.isOrgAdmin(o)));
  if (!r || !visible)
    throw new CairnError(
      'not_found',
      'No guidance answer with that id is visible to you; list rule usage to see the answers you can open.',
    );
  return r;
}

/** Deletes answers older than the audit trail keeps its events (the hourly purge runs it); never throws. */
export async function purgeRuleUsage(deps: DomainDeps, log: Logger): Promise<number> {
  const before = new Date(Date.parse(deps.now()) - deps.audit.retentionDays * DAY_MS).toISOString();
  let total = 0;
  try {
    for (;;) {
      const n = await deps.store.purgeRuleUsage(before, PURGE_BATCH);
      total += n;
      if (n < PURGE_BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (total) log.info('rule usage purged', { answers: total, olderThanDays: deps.audit.retentionDays });
  } catch (error) {
    if (!isDatabaseUnavailable(error)) log.warn('could not purge rule usage', { error: (error as Error).message });
  }
  return total;
}

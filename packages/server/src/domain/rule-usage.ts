import type { RuleUsageRow } from '@cairn/contract';
import { redact } from '@cairn/contract/redaction';
import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import { createLogger, type Logger } from '../log/logger.js';
import type { RuleUsageItem, RuleUsageRecord } from '../store/rule-usage-store.js';
import type { Store } from '../store/store.js';
import type { Access } from './access.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { type Guidance, reasonText } from './guidance-answer.js';
import { parse } from './parse-input.js';

export type { RuleUsageItem, RuleUsageRecord } from '../store/rule-usage-store.js';

const DAY_MS = 86_400_000;
const BATCH = 200;
const MAX_QUEUED = 10_000;
const PURGE_BATCH = 1000;

/**
 * Guidance answers waiting to be written, per store: recorded after the answer is made, written in
 * batches off the request's path. A failed write is logged (the error and a count, never a task)
 * and never fails the answer.
 */
class RuleUsageQueue {
  queue: RuleUsageRecord[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  constructor(
    private readonly store: Store,
    public log: Logger,
  ) {}

  push(record: RuleUsageRecord): void {
    this.queue.push(record);
    if (this.queue.length > MAX_QUEUED) this.queue.shift();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    }).unref();
  }

  flush(): Promise<void> {
    this.running ??= this.write().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async write(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, BATCH);
      try {
        await this.store.appendRuleUsage(batch.map(redacted));
      } catch (error) {
        if (!isDatabaseUnavailable(error))
          this.log.warn('could not record rule usage; dropped', {
            answers: batch.length,
            error: (error as Error).message,
          });
      }
      this.queue.splice(0, batch.length);
    }
  }
}

/** The task, session and client as stored: secrets redacted (off the request's path, in the flush). */
function redacted(r: RuleUsageRecord): RuleUsageRecord {
  const clean = (s: string | null) => (s === null ? null : redact(s).text);
  return { ...r, task: redact(r.task).text, session: clean(r.session), client: clean(r.client) };
}

const queues = new WeakMap<Store, RuleUsageQueue>();
const defaultLog = createLogger('warn');

function queueOf(store: Store): RuleUsageQueue {
  let q = queues.get(store);
  if (!q) {
    q = new RuleUsageQueue(store, defaultLog);
    queues.set(store, q);
  }
  return q;
}

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
    queueOf(deps.store).push({
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
    defaultLog.warn('could not record rule usage', { error: (error as Error).message });
  }
}

/** Where failed writes of this store's rule usage are reported (the serving Cairn's log). */
export function useRuleUsageLog(store: Store, log: Logger): void {
  queueOf(store).log = log;
}

/** Writes every recorded answer not yet written (tests, shutdown). */
export function flushRuleUsage(deps: Pick<DomainDeps, 'store'>): Promise<void> {
  return queueOf(deps.store).flush();
}

export type { RuleUsageRow };

export const ruleUsageInput = z.object({
  datapack: z.string().min(1).optional(),
  days: z.number().int().min(1).max(3650).default(30),
});

/**
 * The answers the caller may see: an organization's admin sees every answer given to the
 * organization's members; anyone else only their own answers.
 */
async function visibleAnswers(deps: DomainDeps, access: Access, since: string): Promise<RuleUsageRecord[]> {
  const adminOf = access.memberships.organizations.filter((o) => access.isOrgAdmin(o.id)).map((o) => o.id);
  const byId = new Map<string, RuleUsageRecord>();
  for (const r of await deps.store.listRuleUsage({ since, userId: access.caller.userId })) byId.set(r.id, r);
  for (const org of adminOf)
    for (const r of await deps.store.listRuleUsage({ since, organizationId: org })) byId.set(r.id, r);
  return [...byId.values()];
}

/** `GET /rules/usage`: every readable rule (optionally of one datapack), least given first. */
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
  for (const e of rules)
    rows.set(e.id, {
      entryId: e.id,
      title: e.title,
      given: 0,
      named: 0,
      lastGivenAt: null,
      clients: [],
      clientSet: new Set(),
    });
  const since = new Date(Date.parse(deps.now()) - input.days * DAY_MS).toISOString();
  for (const a of await visibleAnswers(deps, access, since)) {
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
  out.sort((a, b) => a.given - b.given || a.named - b.named || a.title.localeCompare(b.title));
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

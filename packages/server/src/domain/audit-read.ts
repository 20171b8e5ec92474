import type { AuditPage } from '@cairn/contract';
import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import type { Logger } from '../log/logger.js';
import type { AuditQuery } from '../store/audit-types.js';
import type { Access } from './access.js';
import type { DomainDeps } from './deps.js';
import { parse } from './parse-input.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_BATCH = 500;

/** A time bound: an ISO date or date-time, or an age such as `7d` or `12h` (that long before now). */
const instant = z
  .string()
  .trim()
  .max(40, 'must be at most 40 characters')
  .refine(
    (v) =>
      /^\d{1,5}[dh]$/.test(v) ||
      (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(v) && !Number.isNaN(Date.parse(v))),
    {
      message:
        'must be a date such as 2026-01-31, a date-time such as 2026-01-31T12:00:00Z, or an age such as 7d or 12h',
    },
  );

/** What a reader may ask the trail; every field optional. */
export const auditQueryInput = z.object({
  org: z.string().trim().min(1).max(200, 'must be at most 200 characters').optional(),
  actor: z.string().trim().min(1).max(320, 'must be at most 320 characters').optional(),
  kind: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^[a-z_]+(\.[a-z_]+)?$/, 'must be an event kind such as entry.updated, or a family such as entry')
    .optional(),
  since: instant.optional(),
  until: instant.optional(),
  cursor: z.string().max(200, 'must be at most 200 characters').optional(),
  limit: z.number().int().min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
});

/**
 * The trail a caller may read. With `org`: the organization's events, for its admins and owners only,
 * and only from a portal session (a leaked key must not watch an organization). Without: the caller's
 * own events, whatever the credential. A member asking for the org trail gets forbidden; an outsider
 * not_found.
 */
export async function listAudit(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof auditQueryInput>,
): Promise<AuditPage> {
  const input = parse(auditQueryInput, raw);
  const query = toQuery(input);
  const me = access.caller.userId;
  if (input.org !== undefined) {
    if (!access.memberships.organizations.some((o) => o.id === input.org))
      throw new CairnError('not_found', 'No such organization among yours.');
    if (!access.isOrgAdmin(input.org))
      throw new CairnError(
        'forbidden',
        "Only the organization's admins and owners can read its audit trail; yours is at /api/v1/audit without org.",
      );
    if (access.caller.via !== 'session')
      throw new CairnError(
        'forbidden',
        "An organization's audit trail is read from the Cairn portal (Audit) or with the cairn CLI on the server, not with an API key.",
      );
    query.organizationId = input.org;
    if (input.actor !== undefined) query.actorUserId = await userIdOf(deps, input.actor);
  } else {
    if (input.actor !== undefined && (await userIdOf(deps, input.actor)) !== me) {
      throw new CairnError(
        'forbidden',
        "You can read only your own audit trail; an organization admin can read the organization's (pass org).",
      );
    }
    query.actorUserId = me;
  }
  return page(deps, query);
}

/** The operator's view (the CLI on the server): every event, filtered. */
export async function listAuditAsOperator(
  deps: DomainDeps,
  raw: z.input<typeof auditQueryInput> & { organizationId?: string; actorUserId?: string },
): Promise<AuditPage> {
  const { organizationId, actorUserId, ...rest } = raw;
  const query = toQuery(parse(auditQueryInput, rest));
  return page(deps, { ...query, ...(organizationId && { organizationId }), ...(actorUserId && { actorUserId }) });
}

/** Deletes events older than the retention, a batch at a time; logs, never throws (the hourly purge runs it). */
export async function purgeAuditTrail(deps: DomainDeps, log: Logger): Promise<void> {
  const before = new Date(Date.parse(deps.now()) - deps.audit.retentionDays * DAY_MS).toISOString();
  try {
    let total = 0;
    for (;;) {
      const n = await deps.store.purgeAuditEvents(before, PURGE_BATCH);
      total += n;
      if (n < PURGE_BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (total) log.info('audit trail purged', { events: total, olderThanDays: deps.audit.retentionDays });
  } catch (error) {
    if (!isDatabaseUnavailable(error)) log.warn('could not purge the audit trail', { error: (error as Error).message });
  }
}

async function page(deps: DomainDeps, query: AuditQuery): Promise<AuditPage> {
  const events = await deps.store.listAuditEvents({ ...query, limit: query.limit + 1 });
  const more = events.length > query.limit;
  const shown = more ? events.slice(0, query.limit) : events;
  const last = shown.at(-1);
  return {
    events: shown,
    nextCursor: more && last ? Buffer.from(`${last.at}|${last.id}`).toString('base64url') : null,
  };
}

function toQuery(input: z.output<typeof auditQueryInput>): AuditQuery {
  const now = Date.now();
  const query: AuditQuery = { limit: input.limit };
  if (input.kind !== undefined) query.kind = input.kind;
  if (input.since !== undefined) query.since = instantOf(input.since, now);
  if (input.until !== undefined) query.until = instantOf(input.until, now);
  if (query.since && query.until && query.since >= query.until)
    throw new CairnError('invalid_input', 'Invalid input — since must be before until.');
  if (input.cursor !== undefined) query.after = cursorOf(input.cursor);
  return query;
}

function instantOf(value: string, now: number): string {
  const age = /^(\d+)([dh])$/.exec(value);
  if (age) return new Date(now - Number(age[1]) * (age[2] === 'd' ? DAY_MS : DAY_MS / 24)).toISOString();
  return new Date(value).toISOString();
}

function cursorOf(cursor: string): { at: string; id: string } {
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (extra !== undefined || !at || !id || Number.isNaN(Date.parse(at)) || !/^aud_[0-9a-z]{1,40}$/.test(id)) {
    throw new CairnError(
      'invalid_input',
      'Invalid input — cursor: not a cursor this trail gave out; pass the nextCursor of the previous page unchanged, or leave it out to start from the newest.',
    );
  }
  return { at, id };
}

async function userIdOf(deps: DomainDeps, actor: string): Promise<string> {
  if (!actor.includes('@')) return actor;
  // An unknown email matches nobody: an id that no event carries.
  return (await deps.store.findUserByEmail(actor))?.id ?? 'usr_unknown';
}

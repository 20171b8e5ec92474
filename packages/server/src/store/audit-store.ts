import type { Kysely, Selectable } from 'kysely';
import type { AuditEvent, AuditQuery, CredentialType } from './audit-types.js';
import type { Database } from './schema.js';

type AuditRow = Selectable<Database['audit_events']>;

/** Appends events in one statement per batch (the trail is append-only). */
export async function appendAuditEvents(db: Kysely<Database>, events: AuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('audit_events')
    .values(
      events.map((e) => ({
        id: e.id,
        at: e.at,
        kind: e.kind,
        actor_user_id: e.actorUserId,
        actor_email: e.actorEmail,
        organization_id: e.organizationId,
        credential_type: e.credential?.type ?? null,
        credential_id: e.credential?.id ?? null,
        credential_name: e.credential?.name ?? null,
        client: e.client,
        target_type: e.target?.type ?? null,
        target_id: e.target?.id ?? null,
        target_name: e.target?.name ?? null,
        outcome: e.outcome,
      })),
    )
    .execute();
}

/** Events matching every filter given, newest first, keyset-paged by (at, id). */
export async function listAuditEvents(db: Kysely<Database>, q: AuditQuery): Promise<AuditEvent[]> {
  let query = db.selectFrom('audit_events').selectAll();
  if (q.organizationId !== undefined) query = query.where('organization_id', '=', q.organizationId);
  if (q.actorUserId !== undefined) query = query.where('actor_user_id', '=', q.actorUserId);
  if (q.targetId !== undefined) query = query.where('target_id', '=', q.targetId);
  const { kind } = q;
  if (kind !== undefined)
    query = kind.includes('.')
      ? query.where('kind', '=', kind)
      : query.where((eb) => eb.or([eb('kind', '=', kind), eb('kind', 'like', `${kind}.%`)]));
  if (q.since !== undefined) query = query.where('at', '>=', q.since);
  if (q.until !== undefined) query = query.where('at', '<', q.until);
  const after = q.after;
  if (after)
    query = query.where((eb) =>
      eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('id', '<', after.id)])]),
    );
  const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map(toAuditEvent);
}

/** Deletes up to `batch` events recorded before `before`; the caller repeats until fewer come back. */
export async function purgeAuditEvents(db: Kysely<Database>, before: string, batch: number): Promise<number> {
  const doomed = db.selectFrom('audit_events').select('id').where('at', '<', before).limit(batch);
  const result = await db.deleteFrom('audit_events').where('id', 'in', doomed).executeTakeFirst();
  return Number(result.numDeletedRows);
}

function toAuditEvent(r: AuditRow): AuditEvent {
  return {
    id: r.id,
    // PostgreSQL hands timestamptz back as a Date.
    at: (r.at as unknown) instanceof Date ? (r.at as unknown as Date).toISOString() : r.at,
    kind: r.kind,
    actorUserId: r.actor_user_id,
    actorEmail: r.actor_email,
    organizationId: r.organization_id,
    credential: r.credential_type
      ? { type: r.credential_type as CredentialType, id: r.credential_id, name: r.credential_name }
      : null,
    client: r.client,
    target: r.target_type ? { type: r.target_type, id: r.target_id, name: r.target_name } : null,
    outcome: r.outcome as AuditEvent['outcome'],
  };
}

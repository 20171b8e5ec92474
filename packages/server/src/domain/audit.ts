import { redact } from '@cairn/contract/redaction';
import type { AuditEvent, CredentialType } from '../store/audit-types.js';
import type { Datapack, Entry } from '../store/types.js';
import type { Caller } from './caller.js';
import type { DomainDeps } from './deps.js';

/** What a domain verb says happened; the trail adds the id, the time and the credential. */
export interface AuditInput {
  /** A stable dotted name: `entry.updated`, `key.created`, `auth.sign_in_failed`… */
  kind: string;
  /** Who asked, through which credential and client; absent for the operator's CLI. */
  by?: Caller;
  /** The actor when there is no caller (a sign-in, a sign-up); the flush fills in the other half. */
  actor?: { userId?: string | null; email?: string | null };
  organizationId?: string | null;
  target?: { type: string; id?: string | null; name?: string | null };
  outcome?: AuditEvent['outcome'];
  /** Record only the first such event about this target (a key's expiry). */
  once?: boolean;
  /** The client when there is no caller (a sign-in's User-Agent). */
  client?: string | null;
  /** The credential when there is no caller (a sign-in opens a session). */
  credential?: AuditEvent['credential'];
}

/** Records an event off the request's path: never throws, never waits for the database. */
export function audit(deps: DomainDeps, input: AuditInput): void {
  try {
    const { by } = input;
    deps.audit.record({
      id: deps.newId('aud'),
      at: deps.now(),
      kind: input.kind,
      actorUserId: by?.userId ?? input.actor?.userId ?? null,
      actorEmail: bounded(input.actor?.email?.toLowerCase(), 254),
      organizationId: input.organizationId ?? null,
      // No caller and no actor: the operator, on the server's CLI.
      credential: by
        ? credentialOf(by)
        : input.actor
          ? (input.credential ?? null)
          : { type: 'cli', id: null, name: null },
      client: bounded(by?.client ?? input.client, 200),
      target: input.target
        ? { type: input.target.type, id: input.target.id ?? null, name: shown(input.target.name) }
        : null,
      outcome: input.outcome ?? 'success',
      ...(input.once && { once: true }),
    });
  } catch {
    // Recording must never fail the request it records.
  }
}

/** Records a write to a team or organization datapack's entry; personal datapacks are not audited. */
export function auditEntry(
  deps: DomainDeps,
  by: Caller,
  kind: 'entry.created' | 'entry.updated' | 'entry.deleted' | 'entry.restored' | 'entry.purged',
  entry: Entry,
  datapack: Datapack,
): void {
  if (datapack.scope === 'personal') return;
  audit(deps, {
    kind,
    by,
    organizationId: datapack.organizationId,
    target: { type: 'entry', id: entry.id, name: `${datapack.name} › ${entry.title}` },
  });
}

/** Records a datapack's creation, change, deletion or restore, at any scope. */
export function auditDatapack(
  deps: DomainDeps,
  by: Caller,
  kind: 'datapack.created' | 'datapack.updated' | 'datapack.deleted' | 'datapack.restored',
  datapack: Datapack,
): void {
  audit(deps, {
    kind,
    by,
    organizationId: datapack.organizationId,
    target: { type: `datapack.${datapack.scope}`, id: datapack.id, name: datapack.name },
  });
}

/** What the key gate calls when it refuses an expired key: recorded once per key, as the owner's event. */
export function auditKeyExpired(deps: DomainDeps): (key: { id: string; userId: string; name: string }) => void {
  return (key) =>
    audit(deps, {
      kind: 'key.expired',
      actor: { userId: key.userId },
      target: { type: 'api_key', id: key.id, name: key.name },
      outcome: 'refused',
      once: true,
    });
}

function credentialOf(by: Caller): AuditEvent['credential'] {
  const type: CredentialType = by.via === 'legacy_api_key' ? 'api_key' : by.via;
  if (type === 'api_key') return { type, id: by.keyId ?? null, name: by.keyName ?? null };
  if (type === 'oauth') return { type, id: by.oauthClientId ?? null, name: null };
  return { type, id: by.sessionId ?? null, name: null };
}

/** A name as the trail keeps it: secrets redacted, control characters dropped, bounded. */
function shown(name: string | null | undefined): string | null {
  return name ? bounded(redact(name).text, 200) : null;
}

function bounded(text: string | null | undefined, max: number): string | null {
  if (!text) return null;
  return text.replace(/[\p{Cc}\p{Cf}]/gu, ' ').slice(0, max);
}

export type { AuditEvent, CredentialType } from '@cairn/contract';

/** Which events to list: every filter given must match; newest first, `limit` at most. */
export interface AuditQuery {
  organizationId?: string;
  actorUserId?: string;
  /** An exact kind (`entry.updated`), or a family without a dot (`entry` matches `entry.*`). */
  kind?: string;
  targetId?: string;
  /** Inclusive lower bound on `at`. */
  since?: string;
  /** Exclusive upper bound on `at`. */
  until?: string;
  /** Continue after this event (the last one of the previous page). */
  after?: { at: string; id: string };
  limit: number;
}

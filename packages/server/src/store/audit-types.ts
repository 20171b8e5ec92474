/** How the actor proved who they were. */
export type CredentialType = 'api_key' | 'oauth' | 'session' | 'cli';

/** One recorded security- or policy-relevant event; never a secret, token, password or entry body. */
export interface AuditEvent {
  id: string;
  at: string;
  /** A stable dotted name such as `key.created` or `entry.updated`. */
  kind: string;
  actorUserId: string | null;
  /** The actor's email when the event was recorded. */
  actorEmail: string | null;
  organizationId: string | null;
  credential: { type: CredentialType; id: string | null; name: string | null } | null;
  /** The client as it introduced itself (MCP `initialize`), else its User-Agent; "cairn-portal" for the portal. */
  client: string | null;
  target: { type: string; id: string | null; name: string | null } | null;
  outcome: 'success' | 'failure' | 'refused';
}

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

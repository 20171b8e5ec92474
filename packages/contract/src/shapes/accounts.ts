// The shapes of keys, connected apps, members and the audit trail as the server answers them and the
// portal reads them.

/** What a key may do: `read` reaches only the reading verbs; `read-write` everything a key may do. */
export type KeyScope = 'read' | 'read-write';

/** An API key as stored and listed: never the key itself. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  start: string;
  last4: string;
  scope: KeyScope;
  createdAt: string;
  /** After this instant the key is refused exactly like a revoked one; null: it never expires. */
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  lastUsedClient: string | null;
}

/** An OAuth client a user has let in, as Settings > Connected apps lists it. */
export interface ConnectedApp {
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
  grantedAt: string | null;
  /** When the app last got a token from Cairn (each refresh counts) or last called /mcp. */
  lastUsedAt: string | null;
  /** The client that last called /mcp with it, as its `initialize` named itself ("Claude Code 2.1"). */
  lastUsedClient: string | null;
}

/** An organization member as the settings page lists them. */
export interface OrgMember {
  userId: string;
  email: string;
  name: string;
  role: string;
}

/** A team with its members. */
export interface TeamWithMembers {
  id: string;
  name: string;
  members: { userId: string; email: string; name: string }[];
}

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

/** A page of the audit trail (`GET /api/v1/audit`) and where the next one starts (null at the end). */
export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

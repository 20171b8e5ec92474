import type { Generated } from 'kysely';

/** Cairn's own tables (better-auth owns user/session/organization/member/team tables). */
export interface CairnTables {
  datapack: DatapackTable;
  entry: EntryTable;
  entry_version: EntryVersionTable;
  api_key: ApiKeyTable;
  setup_code: SetupCodeTable;
  invite: InviteTable;
  entry_embedding: { entry_id: string; version: number; model: string; vector: Uint8Array; created_at: Timestamp };
  oauth_client_use: {
    user_id: string;
    client_id: string;
    last_used_at: Timestamp;
    last_used_client: string | null;
    client_name: string | null;
  };
  capture_turn: {
    user_id: string;
    turn_id: string;
    entry_id: string;
    created_at: Timestamp;
    session_id: string | null;
    speaker: string | null;
    role: string | null;
  };
  audit_events: AuditEventTable;
  rule_usage_answer: RuleUsageAnswerTable;
  /** One row: a count of every change to who can use what (keys, users, memberships, datapacks), kept by triggers; see epoch-cache.ts. */
  access_epoch: { id: number; epoch: number | string };
}

/** The better-auth tables Cairn reads for identity and access control. */
export interface AuthTables {
  user: { id: string; email: string; name: string; createdAt: string | Date };
  organization: { id: string; name: string; slug: string; createdAt: string | Date };
  member: { id: string; organizationId: string; userId: string; role: string; createdAt: string | Date };
  team: { id: string; name: string; organizationId: string; createdAt: string | Date };
  teamMember: { id: string; teamId: string; userId: string; createdAt: string | Date | null };
}

/** Everything a Cairn Kysely instance can query. */
export type Database = CairnTables & AuthTables;

/** Timestamps are ISO-8601 strings on both backends (Postgres timestamptz is parsed to ISO on read). */
type Timestamp = string;

interface DatapackTable {
  id: string;
  scope: 'personal' | 'team' | 'organization';
  owner_id: string;
  organization_id: string | null;
  name: string;
  description: string;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  deleted_by: string | null;
  /** Kept by triggers on entry: how many of its entries are live, and a count of every change to them. */
  live_entries: Generated<number>;
  entry_revision: Generated<number | string>;
}

interface EntryTable {
  id: string;
  datapack_id: string;
  kind: string;
  title: string;
  content: string;
  tags: string;
  content_hash: string;
  version: number;
  created_by: string;
  created_client: string | null;
  created_at: Timestamp;
  updated_by: string;
  updated_client: string | null;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  /** JSON of Applies, or null. */
  applies: string | null;
  /** JSON list of the entry ids it replaced. */
  supersedes: Generated<string>;
  replaced_by: string | null;
  /** Who answers for it (a user id); null on entries saved before owners: their author. */
  owner_id: string | null;
  /** YYYY-MM-DD (UTC): past it, the rule is flagged for review; past `expires`, no longer served. */
  review_by: string | null;
  expires: string | null;
}

interface EntryVersionTable {
  entry_id: string;
  version: number;
  change: 'create' | 'update' | 'delete' | 'restore';
  kind: string;
  title: string;
  content: string;
  tags: string;
  changed_by: string;
  changed_client: string | null;
  changed_at: Timestamp;
  restored_from: number | null;
  /** JSON of Applies or 'null' (nothing said); SQL NULL on versions saved before history kept it. */
  applies: string | null;
  /** JSON of { owner, reviewBy, expires }; SQL NULL on versions saved before history kept it. */
  lifecycle: string | null;
}

interface ApiKeyTable {
  id: string;
  user_id: string;
  name: string;
  start: string;
  last4: string;
  key_hash: string;
  scope: 'read' | 'read-write';
  created_at: Timestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  last_used_client: string | null;
  client_name: string | null;
}

interface SetupCodeTable {
  code_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

interface InviteTable {
  token_hash: string;
  organization_id: string;
  role: string;
  created_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  used_by: string | null;
}

interface AuditEventTable {
  id: string;
  at: Timestamp;
  kind: string;
  actor_user_id: string | null;
  actor_email: string | null;
  organization_id: string | null;
  credential_type: string | null;
  credential_id: string | null;
  credential_name: string | null;
  client: string | null;
  target_type: string | null;
  target_id: string | null;
  target_name: string | null;
  outcome: string;
}

interface RuleUsageAnswerTable {
  id: string;
  at: Timestamp;
  user_id: string;
  /** The caller's organizations when answered, as ",org_a,org_b," (so a LIKE finds one). */
  organization_ids: string;
  client: string | null;
  session: string | null;
  task: string;
  /** JSON list of { id, title, reason }. */
  given: string;
  named: string;
}

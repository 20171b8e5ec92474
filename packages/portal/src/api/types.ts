/** The signed-in user as `/api/v1/me` returns it. */
export interface Me {
  user: { id: string; email: string; name: string };
  organizations: { id: string; name: string; role: string }[];
  teams: { id: string; name: string; organizationId: string }[];
}

/** What the portal must know before sign-in. */
export interface PortalConfig {
  baseUrl: string;
  mcpUrl: string;
  signUpOpen?: boolean;
  /** The operator declared cairn-mcp-installer published on the npm registry (CAIRN_INSTALLER_PUBLISHED). */
  installerPublished?: boolean;
  /** OAuth clients may register loopback callbacks (CAIRN_OAUTH_ALLOW_LOOPBACK); absent from older servers means yes. */
  oauthLoopbackAllowed?: boolean;
  /** The cairn plugin marketplace for Claude Code's automatic mode (CAIRN_PLUGIN_MARKETPLACE); absent: the installer's own copy. */
  pluginMarketplace?: string;
}

/** Who owns a datapack. */
export type Scope = 'personal' | 'team' | 'organization';

/** A datapack as listed. */
export interface Datapack {
  id: string;
  name: string;
  scope: Scope;
  description?: string | null;
  organizationId?: string | null;
  ownerId?: string;
  entryCount?: number;
  lastChangedAt?: string | null;
  /** Whether you may add, edit and delete its entries (organization datapacks: admins and owners). */
  writable?: boolean;
  createdAt: string;
  updatedAt?: string;
}

/** One entry of a datapack. */
export interface Entry {
  id: string;
  datapackId: string;
  kind: string;
  title: string;
  content: string;
  tags: string[];
  version: number;
  createdBy: string;
  createdClient?: string | null;
  createdAt: string;
  updatedBy?: string | null;
  updatedClient?: string | null;
  updatedAt: string;
  /** Where it applies besides its topic. */
  applies?: { always: boolean; files: string[]; projects: string[] };
  /** Entries it replaced. */
  supersedes?: string[];
  /** The entry that replaced it, or null. */
  replacedBy?: string | null;
}

/** One version in an entry's history. */
export interface EntryVersion {
  version: number;
  /** create, update, delete or restore. */
  change: string;
  /** For a restore: the version it brought back. */
  restoredFrom?: number;
  kind?: string;
  tags?: string[];
  title: string;
  content: string;
  changedBy: string;
  changedClient?: string | null;
  changedAt: string;
}

/** An API key as listed (never the key itself). */
export interface ApiKeyRecord {
  id: string;
  name: string;
  start?: string | null;
  last4?: string | null;
  /** `read` reaches list, search, guidance and get only; older servers send none (read-write). */
  scope?: 'read' | 'read-write';
  createdAt: string;
  /** Null or absent: the key never expires. */
  expiresAt?: string | null;
  revokedAt?: string | null;
  lastUsedAt?: string | null;
  lastUsedClient?: string | null;
}

/** A member of an organization. */
export interface Member {
  userId: string;
  email: string;
  name: string;
  role: string;
}

/** A team with its members. */
export interface Team {
  id: string;
  name: string;
  members: { userId: string; email: string; name: string }[];
}

/** The kinds an entry can have (the server's ENTRY_KINDS). */
export const ENTRY_KINDS = ['note', 'preference', 'standard', 'policy', 'decision', 'conversation'] as const;

/** A deleted entry in the trash. */
export interface TrashedEntry {
  entry: Entry;
  datapack: { id: string; name: string; scope: Scope };
  deletedAt: string;
  deletedBy: string;
  /** When it is deleted for good. */
  purgeAt: string;
  /** Whether you may restore it. */
  writable: boolean;
}

/** A deleted datapack in the trash. */
export interface TrashedDatapack {
  id: string;
  name: string;
  scope: Scope;
  description: string;
  entryCount: number;
  deletedAt: string;
  deletedBy: string;
  purgeAt: string;
  writable: boolean;
}

/** `GET /api/v1/trash`. */
export interface Trash {
  retentionDays: number;
  entries: TrashedEntry[];
  datapacks: TrashedDatapack[];
}

/** One event of the audit trail (GET /api/v1/audit). */
export interface AuditEvent {
  id: string;
  at: string;
  kind: string;
  actorUserId: string | null;
  actorEmail: string | null;
  organizationId: string | null;
  credential: { type: 'api_key' | 'oauth' | 'session' | 'cli'; id: string | null; name: string | null } | null;
  client: string | null;
  target: { type: string; id: string | null; name: string | null } | null;
  outcome: 'success' | 'failure' | 'refused';
}

/** A page of the audit trail. */
export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

/** The signed-in user as `/api/v1/me` returns it. */
export interface Me {
  user: { id: string; email: string; name: string };
  organizations: { id: string; name: string; role: string }[];
  teams: { id: string; name: string; organizationId: string }[];
}

/** What the portal must know before sign-in. */
export interface PortalConfig {
  /** A session cookie came with the request; false means signed out (absent from older servers: ask /me). */
  sessionCookie?: boolean;
  baseUrl: string;
  mcpUrl: string;
  signUpOpen?: boolean;
  /** The operator declared cairn-mcp-installer published on the npm registry (CAIRN_INSTALLER_PUBLISHED). */
  installerPublished?: boolean;
  /** OAuth clients may register loopback callbacks (CAIRN_OAUTH_ALLOW_LOOPBACK); absent from older servers means yes. */
  oauthLoopbackAllowed?: boolean;
  /** client_ids whose metadata documents the operator pinned (CAIRN_OAUTH_PINNED_CLIENTS): their sign-in needs no fetch from the vendor. */
  oauthPinnedClients?: string[];
  /** The cairn plugin marketplace for Claude Code's automatic mode (CAIRN_PLUGIN_MARKETPLACE); absent: the installer's own copy. */
  pluginMarketplace?: string;
}

// What the server answers, in the contract's shapes (the server's views are typed with the same ones).
export type {
  ApiKeyRecord,
  AuditEvent,
  AuditPage,
  ConnectedApp,
  DatapackView as Datapack,
  ExpiredEntryView as ExpiredRule,
  ImportReport,
  OrgMember as Member,
  PublicEntry as Entry,
  PublicHit as SearchResult,
  PublicVersion as EntryVersion,
  ReplacedEntryView as ReplacedRule,
  Scope,
  TeamWithMembers as Team,
  TrashedDatapackView as TrashedDatapack,
  TrashedEntryView as TrashedEntry,
  TrashView as Trash,
} from '@cairn/contract';

/** The kinds an entry can have (the server's ENTRY_KINDS), in the order the portal offers them. */
export const ENTRY_KINDS = ['note', 'preference', 'standard', 'policy', 'decision', 'conversation'] as const;

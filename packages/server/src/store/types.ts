/** The three levels a datapack can belong to, from narrowest to widest. */
export type Scope = 'personal' | 'team' | 'organization';

/** A named collection of entries owned by a user, a team or an organization. */
export interface Datapack {
  id: string;
  scope: Scope;
  /** User id, team id or organization id, by scope. */
  ownerId: string;
  organizationId: string | null;
  name: string;
  description: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** When it was deleted (it stays restorable); absent or null while live. */
  deletedAt?: string | null;
  deletedBy?: string | null;
}

/** A datapack with what the list view shows about its contents. */
export interface DatapackSummary extends Datapack {
  entryCount: number;
  lastChangedAt: string;
}

/** A unit of knowledge with its provenance. */
export interface Entry {
  id: string;
  datapackId: string;
  kind: string;
  title: string;
  content: string;
  tags: string[];
  contentHash: string;
  version: number;
  createdBy: string;
  createdClient: string | null;
  createdAt: string;
  updatedBy: string;
  updatedClient: string | null;
  updatedAt: string;
  deletedAt: string | null;
  /** When it applies besides its topic; null (or absent) when nothing was said. */
  applies?: Applies | null;
  /** Ids of the entries this one replaced when it was saved. */
  supersedes?: string[];
  /** The entry that replaced this one: a replaced entry is no longer guidance, until restored. */
  replacedBy?: string | null;
}

/** Where an entry applies besides its topic: with every task, for tasks touching matching files, or in named projects. */
export interface Applies {
  always: boolean;
  /** Globs (picomatch syntax), relative to a repository's root. */
  files: string[];
  projects: string[];
}

/** A datapack in the trash: who deleted it and when, and how many live entries it held. */
export interface TrashedDatapack extends Datapack {
  deletedAt: string;
  deletedBy: string;
  entryCount: number;
}

/** What a history row records: `restore` brought an earlier version (or a deleted entry) back as a new version. */
export type EntryChange = 'create' | 'update' | 'delete' | 'restore';

/** One row of an entry's history: the state after a change. */
export interface EntryVersion {
  entryId: string;
  version: number;
  change: EntryChange;
  /** For a `restore`: the version whose content it brought back. */
  restoredFrom: number | null;
  kind: string;
  title: string;
  content: string;
  tags: string[];
  changedBy: string;
  changedClient: string | null;
  changedAt: string;
}

/** A search result; `score` is higher for better matches and only comparable within one backend. */
export interface SearchHit {
  entry: Entry;
  score: number;
}

/** What a key may do: `read` reaches only the reading verbs; `read-write` everything a key may do. */
export type KeyScope = 'read' | 'read-write';

/** An API key as stored: never the key itself. */
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

/** A user as Cairn needs to know them. */
export interface UserRecord {
  id: string;
  email: string;
  name: string;
}

/** Where a user belongs, with roles: the input of every access decision. */
export interface Memberships {
  organizations: { id: string; name: string; role: string }[];
  teams: { id: string; name: string; organizationId: string }[];
}

/** Owner selectors for listing: a datapack matches when its scope and owner both match one. */
export interface OwnerRef {
  scope: Scope;
  ownerId: string;
}

/** What a search is narrowed to. */
/** What capture knows of a turn besides its text: where it sits in its conversation. */
export interface TurnFields {
  role: 'user' | 'assistant';
  sessionId?: string;
  /** Who spoke, when the client knows a name (imported conversations); otherwise the role says it. */
  speaker?: string;
}

/** An entry version the embeddings provider has not seen yet. */
export interface TextToEmbed {
  id: string;
  version: number;
  kind: string;
  title: string;
  content: string;
  tags: string[];
}

/** A captured turn with where it was said. */
export interface ConversationTurn {
  entry: Entry;
  role: string | null;
  speaker: string | null;
}

export interface SearchQuery {
  datapackIds: string[];
  /** Free text; matched as any-of its terms, ranked by relevance. */
  text: string;
  kinds?: string[];
  limit: number;
  /**
   * `lexical`: words only, each word as itself (no prefix of its stem), as the near-duplicate check
   * wants: a near-duplicate shares the words themselves. Otherwise the store's configured ranking.
   */
  ranking?: 'lexical';
  /**
   * Only these entries may be returned (a tag or author filter, see filteredEntryIds): the ranking
   * runs over every candidate as without it, then keeps these, so none is lost below a depth.
   */
  only?: ReadonlySet<string>;
}

/** Use of an OAuth grant (a user's tokens for one client) seen since the last flush. */
export interface OAuthUse {
  userId: string;
  clientId: string;
  at: string;
  client: string | null;
}

/** A credential an MCP client connects with: an API key, or one user's grant to one OAuth client. */
export type ClientCredential = { keyId: string } | { userId: string; oauthClientId: string };

/** Usage seen for a key since the last flush. */
export interface KeyUsage {
  id: string;
  at: string;
  client: string | null;
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

/** A pending invitation to an organization. */
export interface Invite {
  organizationId: string;
  role: 'member' | 'admin';
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}

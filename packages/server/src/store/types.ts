// Shapes the API shows as they are stored come from @cairn/contract; the records below add what only storage keeps.
import type { Applies, Datapack, PublicEntry, PublicVersion, Scope } from '@cairn/contract';

export type {
  ApiKeyRecord,
  Applies,
  Datapack,
  EntryChange,
  KeyScope,
  OrgMember,
  Scope,
  TeamWithMembers,
} from '@cairn/contract';

/** A datapack with what the list view shows about its contents. */
export interface DatapackSummary extends Datapack {
  entryCount: number;
  lastChangedAt: string;
}

/** A unit of knowledge with its provenance, as stored: the public entry with its content hash and deletion time. */
export interface Entry
  extends Omit<PublicEntry, 'applies' | 'supersedes' | 'replacedBy' | 'owner' | 'reviewBy' | 'expires'> {
  contentHash: string;
  deletedAt: string | null;
  /** When it applies besides its topic; null (or absent) when nothing was said. */
  applies?: Applies | null;
  /** Ids of the entries this one replaced when it was saved. */
  supersedes?: string[];
  /** The entry that replaced this one: a replaced entry is no longer guidance, until restored. */
  replacedBy?: string | null;
  /** Who answers for it (a user id); absent or null: its author. */
  owner?: string | null;
  /** YYYY-MM-DD: past it, flagged for review (still served). */
  reviewBy?: string | null;
  /** YYYY-MM-DD: past it, no longer served by guidance, until renewed. */
  expires?: string | null;
}

/** A rule's lifecycle as a version keeps it. */
export interface Lifecycle {
  owner: string | null;
  reviewBy: string | null;
  expires: string | null;
}

/** A datapack in the trash: who deleted it and when, and how many live entries it held. */
export interface TrashedDatapack extends Datapack {
  deletedAt: string;
  deletedBy: string;
  entryCount: number;
}

/** One row of an entry's history, as stored: the public version with its entry's id. */
export interface EntryVersion
  extends Omit<PublicVersion, 'restoredFrom' | 'applies' | 'owner' | 'reviewBy' | 'expires'> {
  /** Where this version applied (null: nothing said); undefined when the version predates it. */
  applies?: Applies | null;
  /** Its owner and dates; undefined when the version predates lifecycles. */
  lifecycle?: Lifecycle;
  entryId: string;
  /** For a `restore`: the version whose content it brought back. */
  restoredFrom: number | null;
}

/** A search result; `score` is higher for better matches and only comparable within one backend. */
export interface SearchHit {
  entry: Entry;
  score: number;
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
   * The near-duplicate check's ranking: words only (no vectors), each word as itself (no prefix of
   * its stem), since a near-duplicate shares the words themselves. Otherwise the store's configured
   * ranking.
   */
  forDuplicateCheck?: true;
  /**
   * Only these entries may be returned (a tag or author filter, see filteredEntryIds): the ranking
   * runs over every candidate as without it, then keeps these, so none is lost below a depth.
   */
  only?: ReadonlySet<string>;
  /**
   * The results are shown as they are (the search tool, the JSON API, the portal): hits far below
   * the best are left out, and rules come before captured turns of similar relevance unless the
   * query is about a conversation (search/for-reader.ts). Guidance and the near-duplicate check
   * read the whole ranking.
   */
  forReader?: boolean;
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

/** A pending invitation to an organization. */
export interface Invite {
  organizationId: string;
  role: 'member' | 'admin';
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}

// The shapes of datapacks, entries, search results and the trash as the server answers them (the JSON
// API, MCP) and the portal reads them. The server's views are typed with these, so the two cannot drift.

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

/** A datapack as the caller sees it: its counts, and whether the caller may change it. */
export interface DatapackView extends Datapack {
  entryCount: number;
  lastChangedAt: string;
  /** Whether the caller may add, edit and delete its entries (organization datapacks: admins and owners). */
  writable: boolean;
}

/** Where a datapack lives, as results name it. */
export interface DatapackRef {
  id: string;
  name: string;
  scope: Scope;
}

/** Where an entry applies besides its topic: with every task, for tasks touching matching files, or in named projects. */
export interface Applies {
  always: boolean;
  /** Globs (`*`, `**`, `?`, classes, braces: docs/guidance.md), relative to a repository's root. */
  files: string[];
  projects: string[];
  /** Its author's words for the situations in which it is needed (as Cursor's `description`); matched against the task. */
  when?: string;
}

/** An entry as every adapter shows it: a unit of knowledge with its provenance. */
export interface PublicEntry {
  id: string;
  datapackId: string;
  kind: string;
  title: string;
  content: string;
  tags: string[];
  version: number;
  createdBy: string;
  createdClient: string | null;
  createdAt: string;
  updatedBy: string;
  updatedClient: string | null;
  updatedAt: string;
  /** Where it applies besides its topic (always false and empty lists when nothing was said). */
  applies: Applies;
  /** Entries it replaced. */
  supersedes: string[];
  /** The entry that replaced it, or null: a replaced entry is no longer guidance, until restored. */
  replacedBy: string | null;
  /**
   * User id of who answers for it: its author unless someone who may write the datapack named another
   * member. An id, as createdBy and updatedBy are: names change, and readers resolve them once from
   * the member list rather than every entry read joining the user table.
   */
  owner: string;
  /** YYYY-MM-DD (UTC), or null: past it the rule is flagged for review to its owner and admins, and still served. */
  reviewBy: string | null;
  /** YYYY-MM-DD (UTC), or null: past it the rule is no longer served and is listed as expired, until renewed. */
  expires: string | null;
}

/** What a history row records: `restore` brought an earlier version (or a deleted entry) back as a new version. */
export type EntryChange = 'create' | 'update' | 'delete' | 'restore';

/** One version in an entry's history: the state after a change. */
export interface PublicVersion {
  version: number;
  change: EntryChange;
  kind: string;
  title: string;
  content: string;
  tags: string[];
  changedBy: string;
  changedClient: string | null;
  changedAt: string;
  /** For a `restore`: the version whose content it brought back. */
  restoredFrom?: number;
  /** Where this version applied; absent on versions saved before history kept it (restoring those leaves applies as is). */
  applies?: Applies;
  /** Its owner and dates; absent on versions saved before history kept them (restoring those leaves them as they are). */
  owner?: string;
  reviewBy?: string | null;
  expires?: string | null;
}

/** A captured turn as a conversation shows it: the entry, and who said it in which role. */
export interface PublicTurn {
  entry: PublicEntry;
  role: string | null;
  speaker: string | null;
}

/** One search result, the same through every adapter; `score` to three decimals, higher is better. */
export interface PublicHit {
  entry: PublicEntry;
  datapack: DatapackRef;
  score: number;
}

/** A deleted entry as the trash lists it. */
export interface TrashedEntryView {
  entry: PublicEntry;
  datapack: DatapackRef;
  deletedAt: string;
  /** User id of who deleted it. */
  deletedBy: string;
  /** When the purge removes it for good. */
  purgeAt: string;
  /** Whether the caller may restore it. */
  writable: boolean;
}

/** A deleted datapack as the trash lists it. */
export interface TrashedDatapackView extends DatapackRef {
  description: string;
  organizationId: string | null;
  /** Live entries it held when deleted; they come back with it. */
  entryCount: number;
  deletedAt: string;
  deletedBy: string;
  purgeAt: string;
  writable: boolean;
}

/** What the caller's trash holds (`GET /api/v1/trash`), newest deletion first. */
export interface TrashView {
  retentionDays: number;
  entries: TrashedEntryView[];
  datapacks: TrashedDatapackView[];
}

/** A rule past its expiry date as `GET /api/v1/expired` lists it, latest expiry first. */
export interface ExpiredEntryView {
  entry: PublicEntry;
  datapack: DatapackRef;
  /** Whether the caller may renew it (PATCH the entry with a new `expires`, or null). */
  writable: boolean;
}

/** One rule's usage over a window (`GET /api/v1/rules/usage` answers `{ days, rules: RuleUsageRow[] }`). */
export interface RuleUsageRow {
  entryId: string;
  title: string;
  /** Times given in full by get_guidance or a hook. */
  given: number;
  /** Times named among the rules that may also apply. */
  named: number;
  lastGivenAt: string | null;
  /** The clients it was given to, as they named themselves. */
  clients: string[];
  /** YYYY-MM-DD, or null: its expiry date. */
  expires: string | null;
  /** Past its expiry date: no longer served, so never given says nothing about it (listed after the live rules). */
  expired: boolean;
}

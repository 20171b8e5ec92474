import type { AuditEvent, AuditQuery } from './audit-types.js';
import type { EntryFilter } from './entry-filter.js';
import type { RuleUsageQuery, RuleUsageRecord } from './rule-usage-store.js';
import type { DatapackImport, EntryRecord, ExportSelection } from './transfer-types.js';
import type {
  ApiKeyRecord,
  ClientCredential,
  ConversationTurn,
  Datapack,
  DatapackSummary,
  Entry,
  EntryVersion,
  Invite,
  KeyUsage,
  Memberships,
  OAuthUse,
  OrgMember,
  OwnerRef,
  SearchHit,
  SearchQuery,
  TeamWithMembers,
  TextToEmbed,
  TrashedDatapack,
  TurnFields,
  UserRecord,
} from './types.js';

/**
 * The one storage contract. `sqlite/` and `postgres/` implement it and both run `store.case.ts`.
 * Methods take and return plain records; access control lives in the domain layer above.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';

  /** Runs start-up schema work so that instances starting at once on one database take turns. */
  withStartupLock<T>(work: () => Promise<T>): Promise<T>;
  /** Applies Cairn's migrations (idempotent). Run after better-auth's, whose tables ours reference. */
  migrate(): Promise<void>;
  /**
   * Returns the stored value of a named instance setting, storing `candidate` first if there is
   * none. Every instance sharing the database gets the same value, whoever stored it first.
   */
  getOrInitSetting(name: string, candidate: string): Promise<string>;
  close(): Promise<void>;

  findUserByEmail(email: string): Promise<UserRecord | undefined>;
  getUser(id: string): Promise<UserRecord | undefined>;
  countUsers(): Promise<number>;
  getMemberships(userId: string): Promise<Memberships>;
  /** A number that grows with every committed change to keys, users, memberships, teams, organizations or datapacks (epoch-cache.ts). */
  accessEpoch(): Promise<number>;
  listOrganizations(): Promise<{ id: string; name: string }[]>;
  listOrgMembers(organizationId: string): Promise<OrgMember[]>;
  listTeams(organizationId: string): Promise<TeamWithMembers[]>;

  insertInvite(tokenHash: string, invite: Invite): Promise<void>;
  /** An unused, unexpired invitation, without using it up. */
  findInvite(tokenHash: string, now: string): Promise<Invite | undefined>;
  /** Uses the invitation up for a user; false when someone else already did or it expired. */
  consumeInvite(tokenHash: string, userId: string, now: string): Promise<boolean>;
  /** An organization's invitations not used and not expired, newest first; `id` is the token's hash. */
  /** Records OAuth grants' latest use (never moving a time backwards). */
  recordOAuthUse(uses: OAuthUse[]): Promise<void>;
  /** A user's OAuth grants' latest use, by client id. */
  listOAuthUse(userId: string): Promise<OAuthUse[]>;
  listInvites(organizationId: string, now: string): Promise<(Invite & { id: string })[]>;
  /** Cancels an unused invitation of this organization; false when there is none. */
  deleteInvite(organizationId: string, tokenHash: string): Promise<boolean>;

  /** Throws CairnError('conflict') when the owner already has a datapack of that name. */
  insertDatapack(datapack: Datapack): Promise<void>;
  /** Renames and redescribes a live datapack; false when there is none; conflict on a taken name. */
  updateDatapack(id: string, change: { name: string; description: string; updatedAt: string }): Promise<boolean>;
  /** A live datapack; one in the trash is undefined here, as for every read path. */
  getDatapack(id: string): Promise<Datapack | undefined>;
  /** The live datapacks of these owners, without counts: the cheap form for access checks and search. */
  findDatapacks(owners: OwnerRef[]): Promise<Datapack[]>;
  /** The same datapacks with entry counts and last change, for list views. */
  listDatapacks(owners: OwnerRef[]): Promise<DatapackSummary[]>;
  /** A datapack in the trash (deleted, not yet purged), with its live entries counted. */
  getTrashedDatapack(id: string): Promise<TrashedDatapack | undefined>;
  /** The datapacks of these owners deleted at or after `since`, newest deletion first. */
  listTrashedDatapacks(owners: OwnerRef[], since: string): Promise<TrashedDatapack[]>;
  /** Moves a live datapack (and so its entries) to the trash; false when it is not live. */
  trashDatapack(id: string, at: string, by: string): Promise<boolean>;
  /**
   * Brings a datapack back from the trash; false when it is not there. Throws CairnError('conflict')
   * when its owner has since made a live datapack of the same name.
   */
  restoreDatapack(id: string, at: string): Promise<boolean>;

  /** Inserts the entry and its first history row atomically. */
  /**
   * Stores a new entry; with `replaced`, in the same transaction, the entries it replaces in their
   * next state (each still at `expectedVersion`, live and not yet replaced, or nothing is stored).
   */
  insertEntry(entry: Entry, replaced?: readonly { next: Entry; expectedVersion: number }[]): Promise<void>;
  /** Live entries of these datapacks that say where they apply and are not replaced. */
  annotatedEntries(datapackIds: string[]): Promise<Entry[]>;
  /** Live, unreplaced entries of these kinds in these datapacks, most recently changed first, at most `limit`; the same array while they are unchanged. */
  ruleEntries(datapackIds: string[], kinds: readonly string[], limit: number): Promise<Entry[]>;
  /** Live entries of these datapacks that another replaced, most recently changed first, at most `limit`. */
  replacedEntries(datapackIds: string[], limit: number): Promise<Entry[]>;
  /** Live entries of these datapacks whose expiry date is before `day` (YYYY-MM-DD), latest expiry first, at most `limit`. */
  expiredEntries(datapackIds: string[], day: string, limit: number): Promise<Entry[]>;
  /**
   * Replaces the entry if its stored version is still `expectedVersion`, and appends the history
   * row, atomically. Returns false (and writes nothing) when the version moved on.
   */
  replaceEntry(next: Entry, expectedVersion: number, change: 'update' | 'delete'): Promise<boolean>;
  /**
   * Stores `next` (live again) as a `restore` version naming the version it brought back, if the
   * entry, live or deleted, is still at `expectedVersion`; false (nothing written) otherwise.
   */
  restoreEntryVersion(next: Entry, expectedVersion: number, restoredFrom: number): Promise<boolean>;
  /** Deleted entries of these datapacks deleted at or after `since`, newest deletion first, at most `limit`. */
  listTrashedEntries(datapackIds: string[], since: string, limit: number): Promise<Entry[]>;
  /**
   * Deletes for good (history, vectors and capture records with them) up to `batch` entries and
   * datapacks deleted before `before`; the caller repeats until both counts are below `batch`.
   */
  purgeTrash(before: string, batch: number): Promise<{ entries: number; datapacks: number }>;
  /** Deletes one entry in the trash for good, with its versions; false when it is not in the trash. */
  purgeEntry(id: string): Promise<boolean>;
  /**
   * Stores a captured turn as an entry unless this user already sent a turn with that id; for such
   * a duplicate it writes nothing and names the entry the first one became.
   */
  insertCapturedTurn(
    entry: Entry,
    userId: string,
    turnId: string,
    turn: TurnFields,
  ): Promise<{ stored: boolean; entryId: string }>;
  getEntry(id: string): Promise<Entry | undefined>;
  /**
   * A captured turn with up to `around` live turns said before and after it in the same session
   * and datapack, in the order said; empty for an entry that is not such a turn.
   */
  listTurnsAround(entryId: string, around: number): Promise<ConversationTurn[]>;

  /** Live entries whose current version has no vector from this model yet (in no particular order). */
  entriesToEmbed(model: string, limit: number): Promise<TextToEmbed[]>;
  /** Stores (or replaces) entries' vectors from this model. */
  saveEmbeddings(model: string, vectors: { entryId: string; version: number; vector: Float32Array }[]): Promise<void>;
  /** The vectors this model gave these entries, with the version each was made from. */
  loadEmbeddings(model: string, entryIds: string[]): Promise<Map<string, { version: number; vector: Float32Array }>>;
  /** How many live entries have a current vector from this model, of how many. */
  embeddingProgress(model: string): Promise<{ embedded: number; entries: number }>;
  listEntries(datapackId: string, page: { limit: number; offset: number }): Promise<Entry[]>;
  listEntryVersions(entryId: string): Promise<EntryVersion[]>;
  findEntryByContentHash(datapackId: string, contentHash: string): Promise<Entry | undefined>;
  rankedEntries(query: SearchQuery): Promise<SearchHit[]>;
  /** Ids of the live entries a tag or author filter lets through (for SearchQuery.only). */
  filteredEntryIds(filter: EntryFilter): Promise<Set<string>>;
  /** Live entries passing the filter, most recently changed first, at most `limit` (a search with filters and no words). */
  filteredEntries(filter: EntryFilter & { includeReplaced?: boolean }, limit: number): Promise<Entry[]>;

  /** Datapacks, live and in the trash, that an export covers, ordered by id. */
  exportDatapacks(selection: ExportSelection): Promise<Datapack[]>;
  /** A datapack by id, live or in the trash (imports match on it; every read path uses getDatapack). */
  getAnyDatapack(id: string): Promise<Datapack | undefined>;
  /**
   * Up to `limit` entries of a datapack, deleted ones too, with ids after `afterId` in id order, each
   * with every version and its capture record; with `createdBy`, only the entries that user created.
   */
  exportEntries(datapackId: string, afterId: string, limit: number, createdBy?: string): Promise<EntryRecord[]>;
  /** The datapack and stored version of those of these entries that exist. */
  entryStates(ids: string[]): Promise<Map<string, { datapackId: string; version: number }>>;
  /** Writes one datapack's part of an import atomically; a version_conflict (nothing written) if an entry moved meanwhile. */
  importDatapack(write: DatapackImport): Promise<void>;

  insertApiKey(record: ApiKeyRecord, keyHash: string): Promise<void>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(userId: string): Promise<ApiKeyRecord[]>;
  /** Returns false when the key does not exist or was already revoked. */
  revokeApiKey(id: string, at: string): Promise<boolean>;
  recordKeyUsage(usage: KeyUsage[]): Promise<void>;
  /** Keeps the name an MCP client gave itself with this credential, so every instance can name it. */
  rememberClientName(credential: ClientCredential, name: string, at: string): Promise<void>;
  /** The name kept by rememberClientName, if any. */
  clientNameOf(credential: ClientCredential): Promise<string | undefined>;

  insertSetupCode(code: { codeHash: string; userId: string; createdAt: string; expiresAt: string }): Promise<void>;
  /**
   * Marks an unused, unexpired code used and returns its user; undefined otherwise. Only one caller can win.
   * With `key`, the key it makes for that user is stored in the same transaction: no key, no spent code.
   */
  consumeSetupCode(
    codeHash: string,
    now: string,
    key?: (userId: string) => { record: ApiKeyRecord; keyHash: string },
  ): Promise<string | undefined>;

  /** Appends audit events (append-only; ids are unique). */
  appendAuditEvents(events: AuditEvent[]): Promise<void>;
  /** Audit events matching the query, newest first. */
  listAuditEvents(query: AuditQuery): Promise<AuditEvent[]>;
  /** Deletes up to `batch` audit events recorded before `before`; returns how many. */
  purgeAuditEvents(before: string, batch: number): Promise<number>;

  /** Records guidance answers (rule usage). */
  appendRuleUsage(records: RuleUsageRecord[]): Promise<void>;
  /** Guidance answers since `since`, by one user or by members of one organization, oldest first. */
  listRuleUsage(query: RuleUsageQuery): Promise<RuleUsageRecord[]>;
  /** One guidance answer. */
  getRuleUsage(id: string): Promise<RuleUsageRecord | undefined>;
  /** Which of these answer ids are stored (an import skips those). */
  storedRuleUsageIds(ids: string[]): Promise<Set<string>>;
  /** Deletes up to `batch` guidance answers recorded before `before`; returns how many. */
  purgeRuleUsage(before: string, batch: number): Promise<number>;
}

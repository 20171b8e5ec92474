import { type Kysely, sql } from 'kysely';
import { BoundedCache } from '../cache/bounded-cache.js';
import { type CandidateRow, type QueryEmbedder, rankQuery, SearchCache, type SearchSource } from '../search/index.js';
import * as accounts from './account-queries.js';
import * as audit from './audit-store.js';
import type { AuditEvent, AuditQuery } from './audit-types.js';
import { DatabaseHealth } from './database-health.js';
import * as datapacks from './datapack-queries.js';
import * as embeddings from './embedding-queries.js';
import { type EntryFilter, filteredEntries, filteredEntryIds } from './entry-filter.js';
import * as entries from './entry-queries.js';
import * as guidance from './guidance-queries.js';
import { type HotQueries, hotQueries } from './hot-queries.js';
import * as keys from './key-queries.js';
import type { RuleUsageQuery, RuleUsageRecord } from './rule-usage-store.js';
import * as ruleUsage from './rule-usage-store.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';
import type { StoreContext } from './store-context.js';
import { entriesState, searchSource } from './store-search.js';
import * as transfer from './transfer-queries.js';
import type { DatapackImport, EntryRecord, ExportSelection } from './transfer-types.js';
import type {
  ApiKeyRecord,
  ClientCredential,
  Datapack,
  Entry,
  Invite,
  KeyUsage,
  OAuthUse,
  OwnerRef,
  SearchQuery,
  TurnFields,
} from './types.js';

/**
 * Everything both backends share; each dialect adds its connection, migrations and full-text search.
 * The queries live by aggregate in the *-queries.ts modules beside this one; this class is the
 * Store those modules make together, and the door search (src/search/) reads the store through.
 */
export abstract class KyselyStore implements Store, StoreContext {
  abstract readonly dialect: 'sqlite' | 'postgres';

  /** Hybrid ranking (word vectors, conversation context) on top of the lexical one; CAIRN_SEARCH_SEMANTIC=false turns it off. */
  semanticSearch = true;
  /** The embeddings provider's vectors replace the word vectors when it is configured and answers. */
  embedder: QueryEmbedder | undefined;
  /**
   * What search keeps of this store's entries between searches; openStore gives it the bound
   * CAIRN_SEARCH_CACHE_MB sets (replaced before the first search, not after).
   */
  searchCache = new SearchCache();
  readonly hot: HotQueries;
  /** Each caller's annotated entries and rules (guidance reads them on every call), by datapacks and their signature. */
  private readonly annotatedCache = new BoundedCache<string, { signature: string; entries: Entry[] }>(1_000);
  /** What search reads of this store (store-search.ts). */
  private readonly searched: SearchSource;

  constructor(
    readonly db: Kysely<Database>,
    /** Outage bookkeeping: logs once when the database becomes unreachable and once when it is back. */
    readonly health = new DatabaseHealth(),
  ) {
    this.hot = hotQueries(db);
    this.searched = searchSource(this, (...args) => this.searchCandidates(...args));
  }

  abstract migrate(): Promise<void>;
  abstract withStartupLock<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Live entries of these datapacks (and kinds) that match any of the terms, at most `max`:
   * found by each dialect's full-text index, ranked by search. With `prefixes` a term also
   * matches the words its rough stem begins, as search does ("deploying" finds "deployment").
   */
  protected abstract searchCandidates(
    datapackIds: string[],
    terms: string[],
    kinds: string[] | undefined,
    max: number,
    prefixes: boolean,
  ): Promise<CandidateRow[]>;
  abstract isUniqueViolation(error: unknown): boolean;

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /** Throws unless the database answers a trivial query (the readiness probe). */
  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  rankedEntries = (query: SearchQuery) => rankQuery(this.searched, query);
  filteredEntryIds = (filter: EntryFilter) => filteredEntryIds(this.db, filter);
  filteredEntries = (filter: EntryFilter & { includeReplaced?: boolean }, limit: number) =>
    filteredEntries(this.db, filter, limit);

  /** Kept per set of datapacks until their entries change (entriesState's signature): one light row instead of a scan per call. */
  async annotatedEntries(datapackIds: string[]): Promise<Entry[]> {
    if (datapackIds.length === 0) return [];
    const { signature } = await entriesState(this, datapackIds);
    const key = datapackIds.join(',');
    const held = this.annotatedCache.get(key);
    if (held?.signature === signature) return held.entries;
    const found = await guidance.annotatedEntries(this.db, datapackIds);
    this.annotatedCache.set(key, { signature, entries: found });
    return found;
  }
  /** Kept as annotatedEntries is, so that the same array comes back while the entries are unchanged (guidance keeps its index by it). */
  async ruleEntries(datapackIds: string[], kinds: readonly string[], limit: number): Promise<Entry[]> {
    if (datapackIds.length === 0) return [];
    const { signature } = await entriesState(this, datapackIds);
    const key = `rules|${kinds.join(',')}|${limit}|${datapackIds.join(',')}`;
    const held = this.annotatedCache.get(key);
    if (held?.signature === signature) return held.entries;
    const found = await guidance.ruleEntries(this.db, datapackIds, kinds, limit);
    this.annotatedCache.set(key, { signature, entries: found });
    return found;
  }
  replacedEntries = (datapackIds: string[], limit: number) => guidance.replacedEntries(this.db, datapackIds, limit);
  expiredEntries = (datapackIds: string[], day: string, limit: number) =>
    guidance.expiredEntries(this.db, datapackIds, day, limit);

  getOrInitSetting = (name: string, candidate: string) => accounts.getOrInitSetting(this, name, candidate);
  findUserByEmail = (email: string) => accounts.findUserByEmail(this, email);
  getUser = (id: string) => accounts.getUser(this, id);
  countUsers = () => accounts.countUsers(this);
  accessEpoch = () => accounts.accessEpoch(this);
  getMemberships = (userId: string) => accounts.getMemberships(this, userId);
  listOrganizations = () => accounts.listOrganizations(this);
  listOrgMembers = (organizationId: string) => accounts.listOrgMembers(this, organizationId);
  listTeams = (organizationId: string) => accounts.listTeams(this, organizationId);
  insertInvite = (tokenHash: string, invite: Invite) => accounts.insertInvite(this, tokenHash, invite);
  findInvite = (tokenHash: string, now: string) => accounts.findInvite(this, tokenHash, now);
  consumeInvite = (tokenHash: string, userId: string, now: string) =>
    accounts.consumeInvite(this, tokenHash, userId, now);
  listInvites = (organizationId: string, now: string) => accounts.listInvites(this, organizationId, now);
  deleteInvite = (organizationId: string, tokenHash: string) => accounts.deleteInvite(this, organizationId, tokenHash);
  recordOAuthUse = (uses: OAuthUse[]) => accounts.recordOAuthUse(this, uses);
  listOAuthUse = (userId: string) => accounts.listOAuthUse(this, userId);

  insertApiKey = (record: ApiKeyRecord, keyHash: string) => keys.insertApiKey(this, record, keyHash);
  findApiKeyByHash = (keyHash: string) => keys.findApiKeyByHash(this, keyHash);
  getApiKey = (id: string) => keys.getApiKey(this, id);
  listApiKeys = (userId: string) => keys.listApiKeys(this, userId);
  revokeApiKey = (id: string, at: string) => keys.revokeApiKey(this, id, at);
  recordKeyUsage = (usage: KeyUsage[]) => keys.recordKeyUsage(this, usage);
  rememberClientName = (credential: ClientCredential, name: string, at: string) =>
    keys.rememberClientName(this, credential, name, at);
  clientNameOf = (credential: ClientCredential) => keys.clientNameOf(this, credential);
  insertSetupCode = (code: { codeHash: string; userId: string; createdAt: string; expiresAt: string }) =>
    keys.insertSetupCode(this, code);
  consumeSetupCode = (
    codeHash: string,
    now: string,
    key?: (userId: string) => { record: ApiKeyRecord; keyHash: string },
  ) => keys.consumeSetupCode(this, codeHash, now, key);

  insertDatapack = (datapack: Datapack) => datapacks.insertDatapack(this, datapack);
  updateDatapack = (id: string, change: { name: string; description: string; updatedAt: string }) =>
    datapacks.updateDatapack(this, id, change);
  getDatapack = (id: string) => datapacks.getDatapack(this, id);
  findDatapacks = (owners: OwnerRef[]) => datapacks.findDatapacks(this, owners);
  listDatapacks = (owners: OwnerRef[]) => datapacks.listDatapacks(this, owners);
  getTrashedDatapack = (id: string) => datapacks.getTrashedDatapack(this, id);
  listTrashedDatapacks = (owners: OwnerRef[], since: string) => datapacks.listTrashedDatapacks(this, owners, since);
  trashDatapack = (id: string, at: string, by: string) => datapacks.trashDatapack(this, id, at, by);
  restoreDatapack = (id: string, at: string) => datapacks.restoreDatapack(this, id, at);

  insertEntry = (entry: Entry, replaced?: readonly { next: Entry; expectedVersion: number }[]) =>
    entries.insertEntry(this, entry, replaced);
  insertCapturedTurn = (entry: Entry, userId: string, turnId: string, turn: TurnFields) =>
    entries.insertCapturedTurn(this, entry, userId, turnId, turn);
  replaceEntry = (next: Entry, expectedVersion: number, change: 'update' | 'delete') =>
    entries.replaceEntry(this, next, expectedVersion, change);
  restoreEntryVersion = (next: Entry, expectedVersion: number, restoredFrom: number) =>
    entries.restoreEntryVersion(this, next, expectedVersion, restoredFrom);
  getEntry = (id: string) => entries.getEntry(this, id);
  listEntries = (datapackId: string, page: { limit: number; offset: number }) =>
    entries.listEntries(this, datapackId, page);
  listEntryVersions = (entryId: string) => entries.listEntryVersions(this, entryId);
  findEntryByContentHash = (datapackId: string, contentHash: string) =>
    entries.findEntryByContentHash(this, datapackId, contentHash);
  listTurnsAround = (entryId: string, around: number) => entries.listTurnsAround(this, entryId, around);
  listTrashedEntries = (datapackIds: string[], since: string, limit: number) =>
    entries.listTrashedEntries(this, datapackIds, since, limit);
  purgeTrash = (before: string, batch: number) => entries.purgeTrash(this, before, batch);
  purgeEntry = (id: string) => entries.purgeEntry(this, id);

  entriesToEmbed = (model: string, limit: number) => embeddings.entriesToEmbed(this, model, limit);
  saveEmbeddings = (model: string, vectors: { entryId: string; version: number; vector: Float32Array }[]) =>
    embeddings.saveEmbeddings(this, model, vectors);
  loadEmbeddings = (model: string, entryIds: string[]) => embeddings.loadEmbeddings(this, model, entryIds);
  embeddingProgress = (model: string) => embeddings.embeddingProgress(this, model);

  appendAuditEvents = (events: AuditEvent[]) => audit.appendAuditEvents(this.db, events);
  listAuditEvents = (query: AuditQuery) => audit.listAuditEvents(this.db, query);
  purgeAuditEvents = (before: string, batch: number) => audit.purgeAuditEvents(this.db, before, batch);
  appendRuleUsage = (records: RuleUsageRecord[]) => ruleUsage.appendRuleUsage(this.db, records);
  listRuleUsage = (query: RuleUsageQuery) => ruleUsage.listRuleUsage(this.db, query);
  getRuleUsage = (id: string) => ruleUsage.getRuleUsage(this.db, id);
  storedRuleUsageIds = (ids: string[]) => ruleUsage.storedRuleUsageIds(this.db, ids);
  purgeRuleUsage = (before: string, batch: number) => ruleUsage.purgeRuleUsage(this.db, before, batch);

  exportDatapacks = (selection: ExportSelection) => transfer.exportDatapacks(this.db, selection);
  getAnyDatapack = (id: string) => transfer.getAnyDatapack(this.db, id);
  exportEntries = (datapackId: string, afterId: string, limit: number, createdBy?: string): Promise<EntryRecord[]> =>
    transfer.exportEntries(this.db, datapackId, afterId, limit, createdBy);
  entryStates = (ids: string[]) => transfer.entryStates(this.db, ids);
  async importDatapack(write: DatapackImport): Promise<void> {
    await transfer.importDatapack(this.db, write);
    if (write.inserts.length || write.updates.length) this.embedder?.notify();
  }
}

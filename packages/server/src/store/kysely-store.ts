import { type Kysely, type Selectable, sql } from 'kysely';
import { CairnError } from '../errors/cairn-error.js';
import { appendAuditEvents, listAuditEvents, purgeAuditEvents } from './audit-store.js';
import type { AuditEvent, AuditQuery } from './audit-types.js';
import { BoundedCache } from './bounded-cache.js';
import { DatabaseHealth } from './database-health.js';
import { type EntryFilter, filteredEntryIds } from './entry-filter.js';
import { nextTurn } from './event-loop-turns.js';
import { facetScores, poolFacetScores } from './facet-scores.js';
import * as guidance from './guidance-queries.js';
import { ENTRY_COLUMNS, type HotQueries, hotQueries, ownedBy, ownerColumns } from './hot-queries.js';
import { fuseColumns, sessions, speakerBoosts, speakerIndex, speakersNamed, type TurnPlace } from './hybrid-ranking.js';
import { buildPoolIndex, type PoolIndex, poolCosines, poolIndexBytes, poolLexicalScores, poolWordMatches, scratchColumns } from './pool-index.js';
import { refreshPoolIndex } from './pool-refresh.js';
import { iso, parseTags, toApiKey, toDatapack, toEntry, toEntryRow, toTrashedDatapack, toVersion, toVersionRow } from './row-mappers.js';
import { takeIntoPools } from './saved-into-pools.js';
import type { Database } from './schema.js';
import { cachedEntryWords, cachedHit, entryWords, poolCache, poolStats, type RankedItem, rememberHit, speakerWords, turnPlaceCache } from './search-cache.js';
import { CAPTURED_KIND, type EntryWords, rankCandidates, words } from './search-ranking.js';
import { searchTerms } from './search-terms.js';
import { type QueryEmbedder, semanticScores } from './semantic-scores.js';
import type { Store } from './store.js';
import { topScores } from './top-scores.js';
import * as transfer from './transfer-queries.js';
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
import { textVector } from './word-vectors.js';

type EntryRow = Selectable<Database['entry']>;

/** A search candidate as a dialect finds it: enough to look up its words and break ties. */
export type CandidateRow = Pick<EntryRow, 'id' | 'kind' | 'version' | 'updated_at'> & { datapack_id?: string };

/** At most this many matches of one search are ranked (the most recent, if more match). */
const MAX_CANDIDATES = 1000;
/** The semantic signal and conversation context cover this many of the caller's newest entries. */
const SEMANTIC_POOL = 25_000;

let openedStores = 0;
/** Each caller's annotated entries (guidance reads them on every call), by store, datapacks and their signature. */
const annotatedCache = new BoundedCache<string, { signature: string; entries: Entry[] }>(1_000);

/** Everything both backends share; each dialect adds its connection, migrations and full-text search. */
export abstract class KyselyStore implements Store {
  abstract readonly dialect: 'sqlite' | 'postgres';

  /** Hybrid ranking (word vectors, conversation context) on top of the lexical one; CAIRN_SEARCH_SEMANTIC=false turns it off. */
  semanticSearch = true;
  /** The embeddings provider's vectors replace the word vectors when it is configured and answers. */
  embedder: QueryEmbedder | undefined;
  /** This store's part of its pools' cache keys. */
  private readonly poolKey = ++openedStores;
  /** The queries of every request, compiled once (hot-queries.ts). */
  private readonly hot: HotQueries;

  constructor(
    readonly db: Kysely<Database>,
    /** Outage bookkeeping: logs once when the database becomes unreachable and once when it is back. */
    readonly health = new DatabaseHealth(),
  ) {
    this.hot = hotQueries(db);
  }

  abstract migrate(): Promise<void>;
  abstract withStartupLock<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Live entries of these datapacks (and kinds) that match any of the terms, at most `max`:
   * found by each dialect's full-text index, ranked by rankCandidates. With `prefixes` a term also
   * matches the words its rough stem begins, as search does ("deploying" finds "deployment").
   */
  protected abstract searchCandidates(datapackIds: string[], terms: string[], kinds: string[] | undefined, max: number, prefixes: boolean): Promise<CandidateRow[]>;
  protected abstract isUniqueViolation(error: unknown): boolean;

  filteredEntryIds(filter: EntryFilter): Promise<Set<string>> {
    return filteredEntryIds(this.db, filter);
  }

  async searchEntries(asked: SearchQuery): Promise<SearchHit[]> {
    if (asked.datapackIds.length === 0 || asked.only?.size === 0) return [];
    // A filtered search ranks every candidate, then keeps those that pass (see SearchQuery.only).
    const query = asked.only ? { ...asked, limit: Number.MAX_SAFE_INTEGER } : asked;
    const terms = searchTerms(query.text);
    const hybrid = this.semanticSearch && query.ranking !== 'lexical';
    if (terms.length === 0 && !(hybrid && (this.embedder || textVector(words(query.text))))) return [];
    // Asked first: the provider answers while the database does.
    const provided = hybrid ? this.embedder?.queryVector(query.text) : undefined;
    let ranked: { id: string; score: number }[];
    let rankedPool: PoolIndex | undefined;
    // The near-duplicate check's: how many entries the datapack holds decides whether its pool can rank them all.
    const lexicalState = !hybrid && query.ranking === 'lexical' && terms.length && !query.kinds?.length ? await this.entriesState(query.datapackIds) : undefined;
    if (hybrid) {
      const state = await this.entriesState(query.datapackIds);
      const pool = await this.poolOf(query, state.signature);
      // A pool short of its limit holds every live entry of those kinds: no need to count them.
      const count = !query.kinds?.length ? state.count : pool.items.length < SEMANTIC_POOL ? pool.items.length : await this.countLive(query.datapackIds, query.kinds);
      // Ranking is a millisecond or two of CPU with no I/O, and SQLite's queries answer without
      // leaving the event loop: one ranking per loop iteration, so probes and other callers' requests get their turn.
      await nextTurn();
      // The pool holds every live entry searched: all of them are scored in memory, no full-text query needed.
      if (pool.items.length >= count) {
        ranked = await this.rankPool(pool, terms, count, await provided, query);
        rankedPool = pool;
      } else ranked = await this.rankFound(query, terms, count, pool.items, await provided);
    } else if (lexicalState && lexicalState.count <= SEMANTIC_POOL) {
      // The near-duplicate check: the datapack's pool, kept up to date by each save, scores every
      // entry from its postings, instead of a full-text query OR-ing every word of the text.
      // A search pool already held that covers the datapack serves it (only its entries count), so
      // a writer does not keep a second pool of the same entries.
      const wider = query.datapackIds.length === 1 ? this.heldPoolCovering(query.datapackIds[0]!) : undefined;
      const widerState = wider && (await this.entriesState(wider));
      const state = widerState && widerState.count <= SEMANTIC_POOL ? widerState : lexicalState;
      const pool = await this.poolOf(state === widerState ? { ...query, datapackIds: wider! } : query, state.signature);
      await nextTurn();
      const scores = poolLexicalScores(pool, terms, state.count);
      const held = poolWordMatches(pool, terms);
      const only = state === widerState ? query.datapackIds[0] : undefined;
      for (let i = 0; i < scores.length; i++) if (!held[i] || (only && pool.items[i]!.datapackId !== only)) scores[i] = 0;
      ranked = topScores(pool.items, scores, query.limit);
      rankedPool = pool;
    } else {
      const [candidates, count] = await Promise.all([
        // No prefixes for the near-duplicate check: on SQLite a prefix reads every tenant's postings of
        // the words it covers, so a save's twenty-odd of them cost more the bigger the whole database.
        terms.length ? this.searchCandidates(query.datapackIds, terms, query.kinds, MAX_CANDIDATES, query.ranking !== 'lexical') : [],
        query.kinds?.length ? this.countLive(query.datapackIds, query.kinds) : this.entriesState(query.datapackIds).then((state) => state.count),
      ]);
      ranked = await this.rankLexical(candidates, terms, count, query.limit);
    }
    if (asked.only) ranked = ranked.filter((r) => asked.only!.has(r.id)).slice(0, asked.limit);
    if (ranked.length === 0) return [];
    const byId = await this.hitEntries(ranked, rankedPool);
    return ranked.flatMap((r) => {
      const entry = byId.get(r.id);
      return entry ? [{ entry, score: r.score }] : [];
    });
  }

  /** The datapacks of a pool this store holds (of every kind) that includes this datapack, if any. */
  private heldPoolCovering(datapackId: string): string[] | undefined {
    for (const key of poolCache.keys()) {
      const [store, ids, kinds] = key.split('|');
      if (store !== String(this.poolKey) || kinds !== '') continue;
      const datapackIds = ids!.split(',');
      if (datapackIds.length > 1 && datapackIds.includes(datapackId)) return datapackIds;
    }
    return undefined;
  }

  /** The ranked entries, those a search of the same pool returned before from the hit cache. */
  private async hitEntries(ranked: { id: string }[], pool: PoolIndex | undefined): Promise<Map<string, Entry>> {
    const byId = new Map<string, Entry>();
    const missing: string[] = [];
    for (const { id } of ranked) {
      const held = pool && cachedHit(pool, id);
      if (held) byId.set(id, held);
      else missing.push(id);
    }
    if (missing.length === 0) return byId;
    for (const row of await this.hot.entriesByIds(missing)) {
      const entry = toEntry(row);
      if (pool) rememberHit(pool, entry);
      byId.set(row.id, entry);
    }
    return byId;
  }

  /** Hybrid ranking of a pool that holds every entry searched, scored with its in-memory index. */
  private async rankPool(pool: PoolIndex, terms: string[], docCount: number, provided: Float32Array | undefined, query: SearchQuery) {
    const queryWords = words(query.text);
    const speakers = speakersNamed(pool.speakers.names, queryWords);
    const topicWords = queryWords.filter((w) => !speakers.has(w));
    const embedded = provided && this.embedder ? await semanticScores(pool.items, query.text, provided, this.embedder.model, (model, ids) => this.loadEmbeddings(model, ids)) : undefined;
    // Nothing below yields until fuseColumns returns: the columns are scratch that the next search fills.
    const columns = scratchColumns(pool.items.length);
    const lexical = poolLexicalScores(pool, terms, docCount, columns.lexical);
    let semantic: Float64Array | undefined;
    if (embedded) semantic = Float64Array.from(pool.items, (item) => embedded.get(item.id) ?? Number.NaN);
    else {
      const vector = textVector(topicWords);
      semantic = vector && poolCosines(pool, vector, columns.semantic);
    }
    const facet = poolFacetScores(pool, topicWords, columns.facet);
    return fuseColumns(pool.items, { lexical, semantic, facet }, speakerBoosts(pool.speakers, speakers), query.limit, pool.sessions);
  }

  /**
   * Hybrid ranking for a caller with more entries than the pool holds: the full-text index finds
   * the matches, the pool (their newest entries) adds the semantic signal and conversation context.
   */
  private async rankFound(query: SearchQuery, terms: string[], liveCount: number, cachedPool: RankedItem[], provided: Float32Array | undefined) {
    const candidates = terms.length ? await this.searchCandidates(query.datapackIds, terms, query.kinds, MAX_CANDIDATES, true) : [];
    // A match the pool holds in another version (changed within the same millisecond) is taken as found.
    const poolVersion = new Map(cachedPool.map((i) => [i.id, i.version]));
    const outside = candidates.filter((c) => poolVersion.get(c.id) !== Number(c.version));
    const replaced = new Set(outside.map((c) => c.id));
    const pool = replaced.size ? cachedPool.filter((i) => !replaced.has(i.id)) : cachedPool;
    const items = [...pool, ...(await this.candidateItems(outside))];
    if (items.length === 0) return [];
    const matched = new Set(candidates.map((c) => c.id));
    const lexical = rankCandidates(
      items.filter((i) => matched.has(i.id)),
      terms,
      liveCount,
      items.length,
    );
    return this.hybridRanking(items, lexical, provided, query);
  }

  /** The lexical ranking alone (the near-duplicate check's): the full-text index's matches, ranked by BM25. */
  private async rankLexical(candidates: CandidateRow[], terms: string[], docCount: number, limit: number) {
    return rankCandidates(await this.candidateItems(candidates), terms, docCount, limit);
  }

  /** Candidates with their words (those whose text is gone by now are left out). */
  private async candidateItems(rows: CandidateRow[]): Promise<RankedItem[]> {
    const known = await this.wordsOf(rows);
    return rows.flatMap((c) => {
      const words = known.get(c.id);
      return words ? [{ id: c.id, kind: c.kind, version: Number(c.version), updatedAt: iso(c.updated_at), words, ...(c.datapack_id && { datapackId: c.datapack_id }) }] : [];
    });
  }

  /** Fuses the lexical scores with the semantic signal and, for captured turns, their conversation. */
  private async hybridRanking(items: RankedItem[], lexical: { id: string; score: number }[], provided: Float32Array | undefined, query: SearchQuery) {
    const lexicalScore = new Map(lexical.map((r) => [r.id, r.score]));
    const places = await this.turnPlaces(items.filter((i) => i.kind === CAPTURED_KIND).map((i) => i.id));
    const queryWords = words(query.text);
    const itemPlaces = items.map((i) => places.get(i.id));
    const itemSpeakers = speakerIndex(itemPlaces);
    const speakers = speakersNamed(itemSpeakers.names, queryWords);
    const semantic = await semanticScores(items, query.text, provided, this.embedder?.model, (model, ids) => this.loadEmbeddings(model, ids), speakers);
    const facet = facetScores(
      items,
      queryWords.filter((w) => !speakers.has(w)),
    );
    const columns = {
      lexical: Float64Array.from(items, (i) => lexicalScore.get(i.id) ?? 0),
      semantic: Float64Array.from(items, (i) => semantic.get(i.id) ?? Number.NaN),
      facet: Float64Array.from(items, (i) => facet.get(i.id) ?? 0),
    };
    return fuseColumns(items, columns, speakerBoosts(itemSpeakers, speakers), query.limit, sessions(items.map((i, k) => ({ id: i.id, turn: itemPlaces[k] }))));
  }

  /** The words of these entries' current versions: from the cache, the rest fetched 500 at a time. */
  private async wordsOf(rows: CandidateRow[]): Promise<Map<string, EntryWords>> {
    const known = new Map<string, EntryWords>();
    const missing: string[] = [];
    for (const r of rows) {
      const cached = cachedEntryWords(r.id, Number(r.version));
      if (cached) known.set(r.id, cached);
      else missing.push(r.id);
    }
    for (let i = 0; i < missing.length; i += 500) {
      const texts = await this.hot.entryTexts(missing.slice(i, i + 500));
      for (const r of texts) known.set(r.id, entryWords({ id: r.id, version: Number(r.version), title: r.title, content: r.content, tags: parseTags(r.tags) }));
    }
    return known;
  }

  /**
   * The caller's newest entries with their words, indexed, for the semantic signal and conversation
   * context (and, when it holds them all, for the whole ranking): kept between searches while the
   * datapacks' entries stay unchanged (entriesState's signature), so a search does not fetch
   * thousands of rows each time.
   */
  private async poolOf(query: SearchQuery, signature: string): Promise<PoolIndex> {
    // The store's own number first: two databases open in one process (an export and its import) may share datapack ids.
    const key = `${this.poolKey}|${[...query.datapackIds].sort().join(',')}|${query.kinds?.join(',') ?? ''}`;
    const cached = poolCache.get(key);
    if (cached?.signature === signature) return cached.index;
    const rows = await this.newestEntries(query.datapackIds, query.kinds, SEMANTIC_POOL);
    // After a write only what changed is read and split: the rest of the pool is still current.
    const kept = new Map(cached ? cached.index.items.map((item, i) => [item.id, { item, place: cached.index.places[i] }]) : []);
    const same = (r: CandidateRow) => {
      const item = kept.get(r.id)?.item;
      return item?.version === Number(r.version) && item.datapackId === r.datapack_id;
    };
    const freshItems = await this.candidateItems(rows.filter((r) => !same(r)));
    const fresh = new Map(freshItems.map((item) => [item.id, item]));
    const freshPlaces = await this.turnPlaces(freshItems.filter((i) => i.kind === CAPTURED_KIND).map((i) => i.id));
    const items: RankedItem[] = [];
    const places: (TurnPlace | undefined)[] = [];
    for (const r of rows) {
      const old = same(r) ? kept.get(r.id) : undefined;
      const item = old?.item ?? fresh.get(r.id);
      if (!item) continue;
      items.push(item);
      places.push(old ? old.place : freshPlaces.get(r.id));
    }
    const index = cached ? refreshPoolIndex(cached.index, items, places) : buildPoolIndex(items, places);
    if (cached) {
      poolStats.refreshed++;
      poolStats.refreshedEntries += freshItems.length;
    } else poolStats.built++;
    poolCache.set(key, { signature, index, bytes: poolIndexBytes(index) });
    return index;
  }

  /**
   * How many live entries these datapacks hold, and a signature that changes with any change to
   * their entries: read from the datapacks' rows (kept by triggers), so it costs the same however
   * many entries the caller has.
   */
  private async entriesState(datapackIds: string[]): Promise<{ count: number; signature: string }> {
    const [row] = await this.hot.datapacksState(datapackIds);
    if (!row) throw new Error('a sum over datapacks answered no row');
    const count = Number(row.n ?? 0);
    return { count, signature: `${count}|r${row.revision ?? 0}` };
  }

  /** How many live entries of these kinds these datapacks hold (counted: each datapack keeps only its total). */
  private async countLive(datapackIds: string[], kinds: string[]): Promise<number> {
    const row = await this.db
      .selectFrom('entry')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('datapack_id', 'in', datapackIds)
      .where('deleted_at', 'is', null)
      .where('kind', 'in', kinds)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The newest live entries of these datapacks (and kinds): what the semantic signal and conversation context cover. */
  private async newestEntries(datapackIds: string[], kinds: string[] | undefined, max: number): Promise<CandidateRow[]> {
    let q = this.db.selectFrom('entry').select(['id', 'kind', 'version', 'updated_at', 'datapack_id']).where('datapack_id', 'in', datapackIds).where('deleted_at', 'is', null);
    if (kinds?.length) q = q.where('kind', 'in', kinds);
    return q.orderBy('updated_at', 'desc').orderBy('id').limit(max).execute();
  }

  /** Session, time and speaker of these captured turns (cached: they never change). */
  private async turnPlaces(entryIds: string[]): Promise<Map<string, TurnPlace>> {
    const missing = entryIds.filter((id) => !turnPlaceCache.has(id));
    for (let i = 0; i < missing.length; i += 500) {
      const rows = await this.hot.turnPlaces(missing.slice(i, i + 500));
      const found = new Map(rows.map((r) => [r.entry_id, r]));
      for (const id of missing.slice(i, i + 500)) {
        const r = found.get(id);
        turnPlaceCache.set(id, r?.session_id ? { session: r.session_id, at: iso(r.created_at), speaker: r.speaker ? speakerWords(r.speaker) : undefined } : null);
      }
    }
    const places = new Map<string, TurnPlace>();
    for (const id of entryIds) {
      const place = turnPlaceCache.get(id);
      if (place) places.set(id, place);
    }
    return places;
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /** Throws unless the database answers a trivial query (the readiness probe). */
  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  async getOrInitSetting(name: string, candidate: string): Promise<string> {
    // Outside the migrations on purpose: settings (the auth secret) are needed before better-auth migrates.
    await sql`CREATE TABLE IF NOT EXISTS cairn_setting (name TEXT PRIMARY KEY, value TEXT NOT NULL)`.execute(this.db);
    await sql`INSERT INTO cairn_setting (name, value) VALUES (${name}, ${candidate}) ON CONFLICT (name) DO NOTHING`.execute(this.db);
    const { rows } = await sql<{ value: string }>`SELECT value FROM cairn_setting WHERE name = ${name}`.execute(this.db);
    return rows[0]!.value;
  }

  async findUserByEmail(email: string): Promise<UserRecord | undefined> {
    return this.db.selectFrom('user').select(['id', 'email', 'name']).where('email', '=', email.toLowerCase()).executeTakeFirst();
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    return (await this.hot.userById(id))[0];
  }

  async countUsers(): Promise<number> {
    const row = await this.db
      .selectFrom('user')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async accessEpoch(): Promise<number> {
    const [row] = await this.hot.accessEpoch();
    if (row) return Number(row.epoch);
    // Deleted by hand: the triggers then count nothing, so it is put back at once. The clock's
    // milliseconds are above any count the triggers reached, so no instance's cache takes it for the
    // epoch it holds; whichever instance is first puts it back, the others keep that row.
    await this.db
      .insertInto('access_epoch')
      .values({ id: 1, epoch: Date.now() })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const [restored] = await this.hot.accessEpoch();
    if (!restored) throw new Error('the access_epoch row could not be put back: restore it with INSERT INTO access_epoch (id, epoch) VALUES (1, <the current time in milliseconds>)');
    return Number(restored.epoch);
  }

  async getMemberships(userId: string): Promise<Memberships> {
    const [organizations, teams] = await Promise.all([this.hot.organizationsOf(userId), this.hot.teamsOf(userId)]);
    return { organizations, teams };
  }

  async listOrganizations(): Promise<{ id: string; name: string }[]> {
    return this.db.selectFrom('organization').select(['id', 'name']).orderBy('createdAt').execute();
  }

  async listOrgMembers(organizationId: string): Promise<OrgMember[]> {
    return this.db
      .selectFrom('member')
      .innerJoin('user', 'user.id', 'member.userId')
      .select(['member.userId as userId', 'user.email as email', 'user.name as name', 'member.role as role'])
      .where('member.organizationId', '=', organizationId)
      .orderBy('user.email')
      .execute();
  }

  async listTeams(organizationId: string): Promise<TeamWithMembers[]> {
    const [teams, members] = await Promise.all([
      this.db.selectFrom('team').select(['id', 'name']).where('organizationId', '=', organizationId).orderBy('name').execute(),
      this.db
        .selectFrom('teamMember')
        .innerJoin('team', 'team.id', 'teamMember.teamId')
        .innerJoin('user', 'user.id', 'teamMember.userId')
        .select(['teamMember.teamId as teamId', 'user.id as userId', 'user.email as email', 'user.name as name'])
        .where('team.organizationId', '=', organizationId)
        .orderBy('user.email')
        .execute(),
    ]);
    return teams.map((t) => ({ ...t, members: members.filter((m) => m.teamId === t.id).map(({ teamId: _, ...m }) => m) }));
  }

  async insertInvite(tokenHash: string, i: Invite): Promise<void> {
    await this.db
      .insertInto('invite')
      .values({ token_hash: tokenHash, organization_id: i.organizationId, role: i.role, created_by: i.createdBy, created_at: i.createdAt, expires_at: i.expiresAt, used_at: null, used_by: null })
      .execute();
  }

  async findInvite(tokenHash: string, now: string): Promise<Invite | undefined> {
    const row = await this.db.selectFrom('invite').selectAll().where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
    return row && { organizationId: row.organization_id, role: row.role as Invite['role'], createdBy: row.created_by, createdAt: iso(row.created_at), expiresAt: iso(row.expires_at) };
  }

  async consumeInvite(tokenHash: string, userId: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('invite')
      .set({ used_at: now, used_by: userId })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async recordOAuthUse(uses: OAuthUse[]): Promise<void> {
    for (const u of uses) {
      await this.db
        .insertInto('oauth_client_use')
        .values({ user_id: u.userId, client_id: u.clientId, last_used_at: u.at, last_used_client: u.client })
        .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ last_used_at: u.at, last_used_client: u.client }).where('oauth_client_use.last_used_at', '<', u.at))
        .execute();
    }
  }

  async listOAuthUse(userId: string): Promise<OAuthUse[]> {
    const rows = await this.db.selectFrom('oauth_client_use').selectAll().where('user_id', '=', userId).execute();
    return rows.map((r) => ({ userId: r.user_id, clientId: r.client_id, at: iso(r.last_used_at), client: r.last_used_client }));
  }

  async listInvites(organizationId: string, now: string): Promise<(Invite & { id: string })[]> {
    const rows = await this.db
      .selectFrom('invite')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((r) => ({
      id: r.token_hash,
      organizationId: r.organization_id,
      role: r.role as Invite['role'],
      createdBy: r.created_by,
      createdAt: iso(r.created_at),
      expiresAt: iso(r.expires_at),
    }));
  }

  async deleteInvite(organizationId: string, tokenHash: string): Promise<boolean> {
    const result = await this.db.deleteFrom('invite').where('organization_id', '=', organizationId).where('token_hash', '=', tokenHash).where('used_at', 'is', null).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async insertDatapack(d: Datapack): Promise<void> {
    try {
      await this.db
        .insertInto('datapack')
        .values({
          id: d.id,
          scope: d.scope,
          owner_id: d.ownerId,
          organization_id: d.organizationId,
          name: d.name,
          description: d.description,
          created_by: d.createdBy,
          created_at: d.createdAt,
          updated_at: d.updatedAt,
        })
        .execute();
    } catch (error) {
      if (this.isUniqueViolation(error)) {
        throw new CairnError('conflict', `A ${d.scope} datapack named "${d.name}" already exists; pick another name or use that one.`);
      }
      throw error;
    }
  }

  async getDatapack(id: string): Promise<Datapack | undefined> {
    const [row] = await this.hot.datapackById(id);
    return row && toDatapack(row);
  }

  async findDatapacks(owners: OwnerRef[]): Promise<Datapack[]> {
    if (owners.length === 0) return [];
    const rows = await this.hot.datapacksOwnedBy(...ownerColumns(owners));
    return rows.map(toDatapack);
  }

  async updateDatapack(id: string, change: { name: string; description: string; updatedAt: string }): Promise<boolean> {
    try {
      const result = await this.db
        .updateTable('datapack')
        .set({ name: change.name, description: change.description, updated_at: change.updatedAt })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    } catch (error) {
      if (this.isUniqueViolation(error)) throw new CairnError('conflict', `A datapack named "${change.name}" already exists here.`);
      throw error;
    }
  }

  async getTrashedDatapack(id: string): Promise<TrashedDatapack | undefined> {
    const row = await this.trashedDatapacks().where('d.id', '=', id).executeTakeFirst();
    return row && toTrashedDatapack(row);
  }

  async listTrashedDatapacks(owners: OwnerRef[], since: string): Promise<TrashedDatapack[]> {
    if (owners.length === 0) return [];
    const rows = await this.trashedDatapacks()
      .where((eb) => ownedBy(eb, ...ownerColumns(owners)))
      .where('d.deleted_at', '>=', since)
      .orderBy('d.deleted_at', 'desc')
      .orderBy('d.id')
      .execute();
    return rows.map(toTrashedDatapack);
  }

  private trashedDatapacks() {
    return this.db.selectFrom('datapack as d').selectAll('d').select('d.live_entries as entry_count').where('d.deleted_at', 'is not', null);
  }

  async trashDatapack(id: string, at: string, by: string): Promise<boolean> {
    const result = await this.db.updateTable('datapack').set({ deleted_at: at, deleted_by: by }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async restoreDatapack(id: string, at: string): Promise<boolean> {
    try {
      const result = await this.db.updateTable('datapack').set({ deleted_at: null, deleted_by: null, updated_at: at }).where('id', '=', id).where('deleted_at', 'is not', null).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    } catch (error) {
      if (!this.isUniqueViolation(error)) throw error;
      const d = await this.db.selectFrom('datapack').select(['name', 'scope']).where('id', '=', id).executeTakeFirst();
      throw new CairnError(
        'conflict',
        `Another ${d?.scope ?? ''} datapack is now named "${d?.name ?? ''}", so this one cannot come back under that name; rename or delete that datapack, then restore this one.`,
      );
    }
  }

  async listDatapacks(owners: OwnerRef[]): Promise<DatapackSummary[]> {
    if (owners.length === 0) return [];
    const rows = await this.hot.datapackSummaries(...ownerColumns(owners));
    return rows.map((row) => {
      const base = toDatapack(row);
      const lastEntry = row.last_entry_at ? iso(row.last_entry_at) : null;
      return {
        ...base,
        entryCount: Number(row.live_entries),
        lastChangedAt: lastEntry && lastEntry > base.updatedAt ? lastEntry : base.updatedAt,
      };
    });
  }

  async insertEntry(entry: Entry, replaced: readonly { next: Entry; expectedVersion: number }[] = []): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('entry').values(toEntryRow(entry)).execute();
      await tx.insertInto('entry_version').values(toVersionRow(entry, 'create')).execute();
      for (const { next, expectedVersion } of replaced) {
        const { id, ...row } = toEntryRow(next);
        const result = await tx
          .updateTable('entry')
          .set(row)
          .where('id', '=', id)
          .where('version', '=', expectedVersion)
          .where('deleted_at', 'is', null)
          .where('replaced_by', 'is', null)
          .executeTakeFirst();
        // Thrown inside the transaction: the new entry is not stored either.
        if (Number(result.numUpdatedRows) !== 1) throw new CairnError('version_conflict', `Entry ${id} changed, was deleted or was replaced while this one was saved; read it again and retry.`);
        await tx.insertInto('entry_version').values(toVersionRow(next, 'update')).execute();
      }
    });
    this.embedder?.notify();
    if (replaced.length === 0) await this.takeIntoHeldPools(entry);
  }

  /** The writer's pools take the entry it just stored, when nothing else changed meanwhile (saved-into-pools.ts); a failure there leaves them to their next search. */
  private async takeIntoHeldPools(entry: Entry, place?: TurnPlace | null): Promise<void> {
    await takeIntoPools(this.poolKey, entry, (ids) => this.entriesState(ids), SEMANTIC_POOL, place).catch(() => {});
  }

  /** Kept per set of datapacks until their entries change (entriesState's signature): one light row instead of a scan per call. */
  async annotatedEntries(datapackIds: string[]): Promise<Entry[]> {
    if (datapackIds.length === 0) return [];
    const { signature } = await this.entriesState(datapackIds);
    const key = `${this.poolKey}|${datapackIds.join(',')}`;
    const held = annotatedCache.get(key);
    if (held?.signature === signature) return held.entries;
    const entries = await guidance.annotatedEntries(this.db, datapackIds);
    annotatedCache.set(key, { signature, entries });
    return entries;
  }

  replacedEntries(datapackIds: string[], limit: number): Promise<Entry[]> {
    return guidance.replacedEntries(this.db, datapackIds, limit);
  }

  async entriesToEmbed(model: string, limit: number): Promise<TextToEmbed[]> {
    const rows = await this.db
      .selectFrom('entry as e')
      .leftJoin('entry_embedding as m', 'm.entry_id', 'e.id')
      .select(['e.id', 'e.version', 'e.kind', 'e.title', 'e.content', 'e.tags'])
      .where('e.deleted_at', 'is', null)
      .where((eb) => eb.or([eb('m.entry_id', 'is', null), eb('m.model', '<>', model), eb('m.version', '<>', eb.ref('e.version'))]))
      // No order: the scan stops at the first `limit` rows found, whatever the database's size.
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, version: Number(r.version), kind: r.kind, title: r.title, content: r.content, tags: parseTags(r.tags) }));
  }

  async saveEmbeddings(model: string, vectors: { entryId: string; version: number; vector: Float32Array }[]): Promise<void> {
    if (vectors.length === 0) return;
    const now = new Date().toISOString();
    await this.db
      .insertInto('entry_embedding')
      .values(vectors.map((v) => ({ entry_id: v.entryId, version: v.version, model, vector: Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength), created_at: now })))
      .onConflict((oc) =>
        oc
          .column('entry_id')
          .doUpdateSet((eb) => ({ version: eb.ref('excluded.version'), model: eb.ref('excluded.model'), vector: eb.ref('excluded.vector'), created_at: eb.ref('excluded.created_at') })),
      )
      .execute()
      .catch((error: unknown) => {
        // An entry deleted for good meanwhile (its datapack removed) has nothing left to embed.
        if (!/foreign key/i.test(String((error as Error).message))) throw error;
      });
  }

  async loadEmbeddings(model: string, entryIds: string[]): Promise<Map<string, { version: number; vector: Float32Array }>> {
    const found = new Map<string, { version: number; vector: Float32Array }>();
    for (let i = 0; i < entryIds.length; i += 500) {
      const rows = await this.db
        .selectFrom('entry_embedding')
        .select(['entry_id', 'version', 'vector'])
        .where('model', '=', model)
        .where('entry_id', 'in', entryIds.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        const bytes = r.vector;
        found.set(r.entry_id, { version: Number(r.version), vector: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) });
      }
    }
    return found;
  }

  async embeddingProgress(model: string): Promise<{ embedded: number; entries: number }> {
    const [live, done] = await Promise.all([
      this.db
        .selectFrom('entry')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('entry_embedding as m')
        .innerJoin('entry as e', 'e.id', 'm.entry_id')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('e.deleted_at', 'is', null)
        .where('m.model', '=', model)
        .whereRef('m.version', '=', 'e.version')
        .executeTakeFirstOrThrow(),
    ]);
    return { embedded: Number(done.n), entries: Number(live.n) };
  }

  async listTurnsAround(entryId: string, around: number): Promise<ConversationTurn[]> {
    const self = await this.db
      .selectFrom('capture_turn as ct')
      .innerJoin('entry as e', 'e.id', 'ct.entry_id')
      .select(['ct.user_id', 'ct.session_id', 'ct.created_at', 'e.datapack_id'])
      .where('ct.entry_id', '=', entryId)
      .where('e.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!self?.session_id) return [];
    const side = (direction: 'before' | 'after', limit: number) =>
      limit === 0
        ? Promise.resolve([])
        : this.db
            .selectFrom('capture_turn as ct')
            .innerJoin('entry as e', 'e.id', 'ct.entry_id')
            .select([...ENTRY_COLUMNS.map((c) => `e.${c}` as const), 'ct.role', 'ct.speaker', 'ct.created_at as said_at'])
            .where('ct.user_id', '=', self.user_id)
            .where('ct.session_id', '=', self.session_id)
            .where('e.datapack_id', '=', self.datapack_id)
            .where('e.deleted_at', 'is', null)
            .where((eb) =>
              direction === 'before'
                ? eb.or([eb('ct.created_at', '<', self.created_at), eb.and([eb('ct.created_at', '=', self.created_at), eb('ct.entry_id', '<', entryId)])])
                : eb.or([eb('ct.created_at', '>', self.created_at), eb.and([eb('ct.created_at', '=', self.created_at), eb('ct.entry_id', '>=', entryId)])]),
            )
            .orderBy('ct.created_at', direction === 'before' ? 'desc' : 'asc')
            .orderBy('ct.entry_id', direction === 'before' ? 'desc' : 'asc')
            .limit(limit)
            .execute();
    const [before, after] = await Promise.all([side('before', around), side('after', around + 1)]);
    return [...before.reverse(), ...after].map((r) => ({ entry: toEntry(r), role: r.role, speaker: r.speaker }));
  }

  async insertCapturedTurn(entry: Entry, userId: string, turnId: string, turn: TurnFields): Promise<{ stored: boolean; entryId: string }> {
    const earlier = () => this.db.selectFrom('capture_turn').select('entry_id').where('user_id', '=', userId).where('turn_id', '=', turnId).executeTakeFirst();
    return this.db
      .transaction()
      .execute(async (tx) => {
        const seen = await tx.selectFrom('capture_turn').select('entry_id').where('user_id', '=', userId).where('turn_id', '=', turnId).executeTakeFirst();
        if (seen) return { stored: false, entryId: seen.entry_id };
        await tx.insertInto('entry').values(toEntryRow(entry)).execute();
        await tx.insertInto('entry_version').values(toVersionRow(entry, 'create')).execute();
        // A concurrent sender of the same turn loses here on the primary key, and its whole transaction rolls back.
        await tx
          .insertInto('capture_turn')
          .values({ user_id: userId, turn_id: turnId, entry_id: entry.id, created_at: entry.createdAt, session_id: turn.sessionId ?? null, speaker: turn.speaker ?? null, role: turn.role })
          .execute();
        return { stored: true, entryId: entry.id };
      })
      .then(async (outcome) => {
        if (!outcome.stored) return outcome;
        this.embedder?.notify();
        await this.takeIntoHeldPools(entry, turn.sessionId ? { session: turn.sessionId, at: entry.createdAt, speaker: turn.speaker ? speakerWords(turn.speaker) : undefined } : null);
        return outcome;
      })
      .catch(async (error: unknown) => {
        if (!this.isUniqueViolation(error) && (error as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw error;
        const winner = await earlier();
        if (!winner) throw error;
        return { stored: false, entryId: winner.entry_id };
      });
  }

  async replaceEntry(next: Entry, expectedVersion: number, change: 'update' | 'delete'): Promise<boolean> {
    const replaced = await this.db.transaction().execute(async (tx) => {
      const { id, ...row } = toEntryRow(next);
      const result = await tx.updateTable('entry').set(row).where('id', '=', id).where('version', '=', expectedVersion).where('deleted_at', 'is', null).executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await tx.insertInto('entry_version').values(toVersionRow(next, change)).execute();
      return true;
    });
    if (replaced && change === 'update') this.embedder?.notify();
    return replaced;
  }

  async restoreEntryVersion(next: Entry, expectedVersion: number, restoredFrom: number): Promise<boolean> {
    const restored = await this.db.transaction().execute(async (tx) => {
      const { id, ...row } = toEntryRow(next);
      const result = await tx.updateTable('entry').set(row).where('id', '=', id).where('version', '=', expectedVersion).executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await tx
        .insertInto('entry_version')
        .values({ ...toVersionRow(next, 'restore'), restored_from: restoredFrom })
        .execute();
      return true;
    });
    if (restored) this.embedder?.notify();
    return restored;
  }

  async listTrashedEntries(datapackIds: string[], since: string, limit: number): Promise<Entry[]> {
    if (datapackIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('entry')
      .select(ENTRY_COLUMNS)
      .where('datapack_id', 'in', datapackIds)
      .where('deleted_at', 'is not', null)
      .where('deleted_at', '>=', since)
      .orderBy('deleted_at', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toEntry);
  }

  async purgeTrash(before: string, batch: number): Promise<{ entries: number; datapacks: number }> {
    // One short step per call (a batch of entries, or a batch of one expired datapack's entries and
    // then the datapack), so the caller can let requests in between steps.
    const expired = await this.db.selectFrom('entry').select('id').where('deleted_at', 'is not', null).where('deleted_at', '<', before).limit(batch).execute();
    if (expired.length > 0) {
      await this.db
        .deleteFrom('entry')
        .where(
          'id',
          'in',
          expired.map((r) => r.id),
        )
        .execute();
      return { entries: expired.length, datapacks: 0 };
    }
    const pack = await this.db.selectFrom('datapack').select('id').where('deleted_at', 'is not', null).where('deleted_at', '<', before).limit(1).executeTakeFirst();
    if (!pack) return { entries: 0, datapacks: 0 };
    const held = await this.db.selectFrom('entry').select('id').where('datapack_id', '=', pack.id).limit(batch).execute();
    if (held.length > 0) {
      await this.db
        .deleteFrom('entry')
        .where(
          'id',
          'in',
          held.map((r) => r.id),
        )
        .execute();
      if (held.length === batch) return { entries: held.length, datapacks: 0 };
    }
    // Only an expired datapack is emptied, and the domain refuses to restore an expired one.
    const result = await this.db.deleteFrom('datapack').where('id', '=', pack.id).where('deleted_at', 'is not', null).where('deleted_at', '<', before).executeTakeFirst();
    return { entries: held.length, datapacks: Number(result.numDeletedRows) };
  }

  async getEntry(id: string): Promise<Entry | undefined> {
    const [row] = await this.hot.entryById(id);
    return row && toEntry(row);
  }

  async listEntries(datapackId: string, page: { limit: number; offset: number }): Promise<Entry[]> {
    const rows = await this.db
      .selectFrom('entry')
      .select(ENTRY_COLUMNS)
      .where('datapack_id', '=', datapackId)
      .where('deleted_at', 'is', null)
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return rows.map(toEntry);
  }

  async listEntryVersions(entryId: string): Promise<EntryVersion[]> {
    const rows = await this.db.selectFrom('entry_version').selectAll().where('entry_id', '=', entryId).orderBy('version').execute();
    return rows.map(toVersion);
  }

  async findEntryByContentHash(datapackId: string, contentHash: string): Promise<Entry | undefined> {
    const [row] = await this.hot.entryByContentHash(datapackId, contentHash);
    return row && toEntry(row);
  }

  async insertApiKey(r: ApiKeyRecord, keyHash: string): Promise<void> {
    await this.db
      .insertInto('api_key')
      .values({
        id: r.id,
        user_id: r.userId,
        name: r.name,
        start: r.start,
        last4: r.last4,
        key_hash: keyHash,
        scope: r.scope,
        created_at: r.createdAt,
        expires_at: r.expiresAt,
        revoked_at: r.revokedAt,
        last_used_at: r.lastUsedAt,
        last_used_client: r.lastUsedClient,
      })
      .execute();
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.hot.apiKeyByHash(keyHash);
    return row && toApiKey(row);
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_key').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toApiKey(row);
  }

  async listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db.selectFrom('api_key').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').execute();
    return rows.map(toApiKey);
  }

  async revokeApiKey(id: string, at: string): Promise<boolean> {
    const result = await this.db.updateTable('api_key').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertSetupCode(c: { codeHash: string; userId: string; createdAt: string; expiresAt: string }): Promise<void> {
    await this.db.insertInto('setup_code').values({ code_hash: c.codeHash, user_id: c.userId, created_at: c.createdAt, expires_at: c.expiresAt, used_at: null }).execute();
  }

  async consumeSetupCode(codeHash: string, now: string): Promise<string | undefined> {
    const row = await this.db
      .updateTable('setup_code')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    return row?.user_id;
  }

  appendAuditEvents(events: AuditEvent[]): Promise<void> {
    return appendAuditEvents(this.db, events);
  }

  listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    return listAuditEvents(this.db, query);
  }

  purgeAuditEvents(before: string, batch: number): Promise<number> {
    return purgeAuditEvents(this.db, before, batch);
  }

  exportDatapacks(selection: ExportSelection): Promise<Datapack[]> {
    return transfer.exportDatapacks(this.db, selection);
  }

  getAnyDatapack(id: string): Promise<Datapack | undefined> {
    return transfer.getAnyDatapack(this.db, id);
  }

  exportEntries(datapackId: string, afterId: string, limit: number, createdBy?: string): Promise<EntryRecord[]> {
    return transfer.exportEntries(this.db, datapackId, afterId, limit, createdBy);
  }

  entryStates(ids: string[]): Promise<Map<string, { datapackId: string; version: number }>> {
    return transfer.entryStates(this.db, ids);
  }

  async importDatapack(write: DatapackImport): Promise<void> {
    await transfer.importDatapack(this.db, write);
    if (write.inserts.length || write.updates.length) this.embedder?.notify();
  }

  async rememberClientName(credential: ClientCredential, name: string, at: string): Promise<void> {
    if ('keyId' in credential) {
      await this.db.updateTable('api_key').set({ client_name: name }).where('id', '=', credential.keyId).execute();
      return;
    }
    const { userId, oauthClientId } = credential;
    await this.db
      .insertInto('oauth_client_use')
      .values({ user_id: userId, client_id: oauthClientId, last_used_at: at, last_used_client: name, client_name: name })
      .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ client_name: name }))
      .execute();
  }

  async clientNameOf(credential: ClientCredential): Promise<string | undefined> {
    const row =
      'keyId' in credential
        ? await this.db.selectFrom('api_key').select('client_name').where('id', '=', credential.keyId).executeTakeFirst()
        : await this.db.selectFrom('oauth_client_use').select('client_name').where('user_id', '=', credential.userId).where('client_id', '=', credential.oauthClientId).executeTakeFirst();
    return row?.client_name ?? undefined;
  }

  async recordKeyUsage(usage: KeyUsage[]): Promise<void> {
    if (usage.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      for (const u of usage) {
        await tx
          .updateTable('api_key')
          .set({ last_used_at: u.at, last_used_client: u.client })
          .where('id', '=', u.id)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', u.at)]))
          .execute();
      }
    });
  }
}

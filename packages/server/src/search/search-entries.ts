import type { Entry, SearchHit, SearchQuery } from '../store/types.js';
import { candidateItems, heldPoolCovering, poolOf, SEMANTIC_POOL, turnPlaces } from './caller-pool.js';
import { nextTurn } from './event-loop-turns.js';
import { facetScores, poolFacetScores } from './facet-scores.js';
import { fuseColumns, sessions, speakerBoosts, speakerIndex, speakersNamed } from './hybrid-ranking.js';
import { type PoolIndex, poolCosines, poolLexicalScores, poolWordMatches, scratchColumns } from './pool-index.js';
import { cachedHit, type RankedItem, rememberHit } from './search-cache.js';
import { CAPTURED_KIND, rankCandidates, words } from './search-ranking.js';
import type { SearchSource } from './search-source.js';
import { searchTerms } from './search-terms.js';
import { semanticScores } from './semantic-scores.js';
import { topScores } from './top-scores.js';
import { textVector } from './word-vectors.js';

/** At most this many matches of one search are ranked (the most recent, if more match). */
const MAX_CANDIDATES = 1000;

type Ranked = { id: string; score: number }[];

/** Ranks the caller's entries for a query: the store answers the reads, search does the rest. */
export async function searchEntries(source: SearchSource, asked: SearchQuery): Promise<SearchHit[]> {
  if (asked.datapackIds.length === 0 || asked.only?.size === 0) return [];
  // A filtered search ranks every candidate, then keeps those that pass (see SearchQuery.only).
  const query = asked.only ? { ...asked, limit: Number.MAX_SAFE_INTEGER } : asked;
  const terms = searchTerms(query.text);
  const hybrid = source.semanticSearch && query.ranking !== 'lexical';
  if (terms.length === 0 && !(hybrid && (source.embedder || textVector(words(query.text))))) return [];
  // Asked first: the provider answers while the database does.
  const provided = hybrid ? source.embedder?.queryVector(query.text) : undefined;
  let ranked: Ranked;
  let rankedPool: PoolIndex | undefined;
  // The near-duplicate check's: how many entries the datapack holds decides whether its pool can rank them all.
  const lexicalState = !hybrid && query.ranking === 'lexical' && terms.length && !query.kinds?.length ? await source.entriesState(query.datapackIds) : undefined;
  if (hybrid) {
    const state = await source.entriesState(query.datapackIds);
    const pool = await poolOf(source, query, state.signature);
    // A pool short of its limit holds every live entry of those kinds: no need to count them.
    const count = !query.kinds?.length ? state.count : pool.items.length < SEMANTIC_POOL ? pool.items.length : await source.countLive(query.datapackIds, query.kinds);
    // Ranking is a millisecond or two of CPU with no I/O, and SQLite's queries answer without
    // leaving the event loop: one ranking per loop iteration, so probes and other callers' requests get their turn.
    await nextTurn();
    // The pool holds every live entry searched: all of them are scored in memory, no full-text query needed.
    if (pool.items.length >= count) {
      ranked = await rankPool(source, pool, terms, count, await provided, query);
      rankedPool = pool;
    } else ranked = await rankFound(source, query, terms, count, pool.items, await provided);
  } else if (lexicalState && lexicalState.count <= SEMANTIC_POOL) {
    // The near-duplicate check: the datapack's pool, kept up to date by each save, scores every
    // entry from its postings, instead of a full-text query OR-ing every word of the text.
    // A search pool already held that covers the datapack serves it (only its entries count), so
    // a writer does not keep a second pool of the same entries.
    const wider = query.datapackIds.length === 1 ? heldPoolCovering(source, query.datapackIds[0]!) : undefined;
    const widerState = wider && (await source.entriesState(wider));
    const state = widerState && widerState.count <= SEMANTIC_POOL ? widerState : lexicalState;
    const pool = await poolOf(source, state === widerState ? { ...query, datapackIds: wider! } : query, state.signature);
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
      terms.length ? source.searchCandidates(query.datapackIds, terms, query.kinds, MAX_CANDIDATES, query.ranking !== 'lexical') : [],
      query.kinds?.length ? source.countLive(query.datapackIds, query.kinds) : source.entriesState(query.datapackIds).then((state) => state.count),
    ]);
    // The lexical ranking alone (the near-duplicate check's): the full-text index's matches, ranked by BM25.
    ranked = rankCandidates(await candidateItems(source, candidates), terms, count, query.limit);
  }
  if (asked.only) ranked = ranked.filter((r) => asked.only!.has(r.id)).slice(0, asked.limit);
  if (ranked.length === 0) return [];
  const byId = await hitEntries(source, ranked, rankedPool);
  return ranked.flatMap((r) => {
    const entry = byId.get(r.id);
    return entry ? [{ entry, score: r.score }] : [];
  });
}

/** The ranked entries, those a search of the same pool returned before from the hit cache. */
async function hitEntries(source: SearchSource, ranked: { id: string }[], pool: PoolIndex | undefined): Promise<Map<string, Entry>> {
  const byId = new Map<string, Entry>();
  const missing: string[] = [];
  for (const { id } of ranked) {
    const held = pool && cachedHit(pool, id);
    if (held) byId.set(id, held);
    else missing.push(id);
  }
  if (missing.length === 0) return byId;
  for (const entry of await source.entriesByIds(missing)) {
    if (pool) rememberHit(pool, entry);
    byId.set(entry.id, entry);
  }
  return byId;
}

/** Hybrid ranking of a pool that holds every entry searched, scored with its in-memory index. */
async function rankPool(source: SearchSource, pool: PoolIndex, terms: string[], docCount: number, provided: Float32Array | undefined, query: SearchQuery): Promise<Ranked> {
  const queryWords = words(query.text);
  const speakers = speakersNamed(pool.speakers.names, queryWords);
  const topicWords = queryWords.filter((w) => !speakers.has(w));
  const embedder = source.embedder;
  const embedded = provided && embedder ? await semanticScores(pool.items, query.text, provided, embedder.model, (model, ids) => source.loadEmbeddings(model, ids)) : undefined;
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
async function rankFound(source: SearchSource, query: SearchQuery, terms: string[], liveCount: number, cachedPool: RankedItem[], provided: Float32Array | undefined): Promise<Ranked> {
  const candidates = terms.length ? await source.searchCandidates(query.datapackIds, terms, query.kinds, MAX_CANDIDATES, true) : [];
  // A match the pool holds in another version (changed within the same millisecond) is taken as found.
  const poolVersion = new Map(cachedPool.map((i) => [i.id, i.version]));
  const outside = candidates.filter((c) => poolVersion.get(c.id) !== Number(c.version));
  const replaced = new Set(outside.map((c) => c.id));
  const pool = replaced.size ? cachedPool.filter((i) => !replaced.has(i.id)) : cachedPool;
  const items = [...pool, ...(await candidateItems(source, outside))];
  if (items.length === 0) return [];
  const matched = new Set(candidates.map((c) => c.id));
  const lexical = rankCandidates(
    items.filter((i) => matched.has(i.id)),
    terms,
    liveCount,
    items.length,
  );
  return hybridRanking(source, items, lexical, provided, query);
}

/** Fuses the lexical scores with the semantic signal and, for captured turns, their conversation. */
async function hybridRanking(source: SearchSource, items: RankedItem[], lexical: Ranked, provided: Float32Array | undefined, query: SearchQuery): Promise<Ranked> {
  const lexicalScore = new Map(lexical.map((r) => [r.id, r.score]));
  const places = await turnPlaces(
    source,
    items.filter((i) => i.kind === CAPTURED_KIND).map((i) => i.id),
  );
  const queryWords = words(query.text);
  const itemPlaces = items.map((i) => places.get(i.id));
  const itemSpeakers = speakerIndex(itemPlaces);
  const speakers = speakersNamed(itemSpeakers.names, queryWords);
  const semantic = await semanticScores(items, query.text, provided, source.embedder?.model, (model, ids) => source.loadEmbeddings(model, ids), speakers);
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

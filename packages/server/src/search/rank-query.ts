import type { Entry, SearchHit, SearchQuery } from '../store/types.js';
import { candidateItems, heldPoolCovering, LEXICAL_POOL, poolOf } from './caller-pool.js';
import { nextTurn } from './event-loop-turns.js';
import { poolFacetScores } from './facet-scores.js';
import { forReader } from './for-reader.js';
import { fuseColumns, speakerBoosts, speakersNamed } from './hybrid-ranking.js';
import type { Pool } from './pool.js';
import { poolCosines, poolDuplicateCandidates, poolLexicalScores, scratchColumns } from './pool-scores.js';
import { type HybridRanking, MAX_CANDIDATES, rankFound } from './rank-found.js';
import { rankCandidates, words } from './search-ranking.js';
import type { SearchSource } from './search-source.js';
import { searchTerms } from './search-terms.js';
import { providerScores } from './semantic-scores.js';
import { textVector } from './word-vectors.js';

type Ranked = { id: string; score: number }[];

/** Ranks the caller's entries for a query: the store answers the reads, search does the rest. */
export async function rankQuery(source: SearchSource, asked: SearchQuery): Promise<SearchHit[]> {
  if (asked.datapackIds.length === 0 || asked.only?.size === 0) return [];
  // A filtered search ranks every candidate, then keeps those that pass (see SearchQuery.only).
  const query = asked.only ? { ...asked, limit: Number.MAX_SAFE_INTEGER } : asked;
  const terms = searchTerms(query.text);
  const hybrid = source.semanticSearch && !query.forDuplicateCheck;
  if (terms.length === 0 && !(hybrid && (source.embedder || textVector(words(query.text))))) return [];
  // Asked first: the provider answers while the database does.
  const provided = hybrid ? source.embedder?.queryVector(query.text) : undefined;
  let ranked: Ranked;
  let rankedPool: Pool | undefined;
  // A query naming someone whose turns were captured ("when did Melanie go camping") asks about a
  // conversation: the hybrid ranking says whose names it used.
  let namesSpeaker = false;
  // The near-duplicate check's: how many entries the datapack holds decides whether its pool can rank them all.
  const lexicalState =
    !hybrid && query.forDuplicateCheck && terms.length && !query.kinds?.length
      ? await source.entriesState(query.datapackIds)
      : undefined;
  if (hybrid) {
    const state = await source.entriesState(query.datapackIds);
    const pool = await poolOf(source, query, state.signature);
    // A pool short of its limit holds every live entry of those kinds: no need to count them.
    const count = !query.kinds?.length
      ? state.count
      : pool.size < source.cache.semanticPool
        ? pool.size
        : await source.countLive(query.datapackIds, query.kinds);
    // Ranking is a millisecond or two of CPU with no I/O, and SQLite's queries answer without
    // leaving the event loop: one ranking per loop iteration, so probes and other callers' requests get their turn.
    await nextTurn();
    // The pool holds every live entry searched: all of them are scored in memory, no full-text query needed.
    const whole = pool.size >= count;
    const hybridRanked = whole
      ? await rankPool(source, pool, terms, count, await provided, query)
      : await rankFound(source, query, terms, count, pool, await provided);
    if (whole) rankedPool = pool;
    ranked = hybridRanked.ranked;
    namesSpeaker = hybridRanked.speakers.size > 0;
  } else if (lexicalState && lexicalState.count <= LEXICAL_POOL) {
    // The near-duplicate check: the datapack's pool, kept up to date by each save, ranks its
    // entries by the text's rarest words from its postings (poolDuplicateCandidates), instead of a
    // full-text query OR-ing every word of the text; above SEMANTIC_POOL entries, a pool of all of
    // them kept for this alone (LEXICAL_POOL).
    // A search pool already held that covers the datapack serves it (only its entries count), so
    // a writer does not keep a second pool of the same entries.
    const wider = query.datapackIds.length === 1 ? heldPoolCovering(source, query.datapackIds[0]!) : undefined;
    const widerState = wider && (await source.entriesState(wider));
    const state = widerState && widerState.count <= source.cache.semanticPool ? widerState : lexicalState;
    const pool = await poolOf(
      source,
      state === widerState ? { ...query, datapackIds: wider! } : query,
      state.signature,
      state.count > source.cache.semanticPool ? LEXICAL_POOL : source.cache.semanticPool,
    );
    await nextTurn();
    ranked = poolDuplicateCandidates(
      pool,
      terms,
      state.count,
      query.limit,
      state === widerState ? query.datapackIds[0] : undefined,
    );
    rankedPool = pool;
  } else {
    const [candidates, count] = await Promise.all([
      // No prefixes for the near-duplicate check: on SQLite a prefix reads every tenant's postings of
      // the words it covers, so a save's twenty-odd of them cost more the bigger the whole database.
      terms.length
        ? source.searchCandidates(query.datapackIds, terms, query.kinds, MAX_CANDIDATES, !query.forDuplicateCheck)
        : [],
      query.kinds?.length
        ? source.countLive(query.datapackIds, query.kinds)
        : source.entriesState(query.datapackIds).then((state) => state.count),
    ]);
    // The lexical ranking alone (the near-duplicate check's): the full-text index's matches, ranked by BM25.
    ranked = rankCandidates(await candidateItems(source, candidates), terms, count, query.limit);
  }
  if (asked.only) ranked = ranked.filter((r) => asked.only!.has(r.id)).slice(0, asked.limit);
  if (ranked.length === 0) return [];
  const byId = await hitEntries(source, ranked, rankedPool);
  const hits = ranked.flatMap((r) => {
    const entry = byId.get(r.id);
    return entry ? [{ entry, score: r.score }] : [];
  });
  return asked.forReader ? forReader(hits, query.text, query.kinds, hybrid, namesSpeaker) : hits;
}

/** The ranked entries, those a search of the same pool returned before from the hit cache. */
async function hitEntries(
  source: SearchSource,
  ranked: { id: string }[],
  pool: Pool | undefined,
): Promise<Map<string, Entry>> {
  const byId = new Map<string, Entry>();
  const missing: string[] = [];
  for (const { id } of ranked) {
    const held = pool && source.cache.cachedHit(pool, id);
    if (held) byId.set(id, held);
    else missing.push(id);
  }
  if (missing.length === 0) return byId;
  for (const entry of await source.entriesByIds(missing)) {
    if (pool) source.cache.rememberHit(pool, entry);
    byId.set(entry.id, entry);
  }
  return byId;
}

/** Hybrid ranking of a pool that holds every entry searched, scored with its in-memory index. */
async function rankPool(
  source: SearchSource,
  pool: Pool,
  terms: string[],
  docCount: number,
  provided: Float32Array | undefined,
  query: SearchQuery,
): Promise<HybridRanking> {
  const queryWords = words(query.text);
  const speakers = speakersNamed(pool.speakers.names, queryWords);
  const topicWords = queryWords.filter((w) => !speakers.has(w));
  const embedder = source.embedder;
  const embedded =
    provided && embedder
      ? await providerScores(
          pool.items,
          provided,
          embedder.model,
          (model, ids) => source.loadEmbeddings(model, ids),
          source.cache.providerVectors,
        )
      : undefined;
  // Nothing below yields until fuseColumns returns: the columns are scratch that the next search fills.
  const columns = scratchColumns(pool.size);
  const lexical = poolLexicalScores(pool, terms, docCount, columns.lexical);
  let semantic: Float64Array | undefined;
  if (embedded) semantic = Float64Array.from(pool.items, (item) => embedded.get(item.id) ?? Number.NaN);
  else {
    const vector = textVector(topicWords);
    semantic = vector && poolCosines(pool, vector, columns.semantic);
  }
  const facet = poolFacetScores(pool, topicWords, columns.facet);
  const ranked = fuseColumns(
    pool.items,
    { lexical, semantic, facet },
    speakerBoosts(pool.speakers, speakers),
    query.limit,
    pool.sessions,
  );
  return { ranked, speakers };
}

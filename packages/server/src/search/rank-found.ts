import type { SearchQuery } from '../store/types.js';
import { candidateItems, turnPlaces } from './caller-pool.js';
import { facetScores, poolFacetScores } from './facet-scores.js';
import { fuseColumns, sessions, speakerBoosts, speakerIndex, speakersNamed } from './hybrid-ranking.js';
import type { Pool } from './pool.js';
import { poolCosines } from './pool-scores.js';
import { entryVector, type PoolItem } from './search-cache.js';
import { CAPTURED_KIND, rankCandidates, words } from './search-ranking.js';
import type { SearchSource } from './search-source.js';
import { providerScores } from './semantic-scores.js';
import { cosine, textVector } from './word-vectors.js';

/** At most this many matches of one search are ranked (the most recent, if more match). */
export const MAX_CANDIDATES = 1000;

/** A hybrid ranking, and the words of captured speakers' names that the query used (their turns were boosted). */
export interface HybridRanking {
  ranked: { id: string; score: number }[];
  speakers: ReadonlySet<string>;
}

/**
 * Hybrid ranking for a caller with more entries than the pool holds: the full-text index finds
 * the matches, the pool (their newest entries) adds the semantic signal and conversation context.
 * The pool's entries are scored from its index (their words are not kept on them); matches the
 * pool lacks, or holds in another version, from their words.
 */
export async function rankFound(
  source: SearchSource,
  query: SearchQuery,
  terms: string[],
  liveCount: number,
  pool: Pool,
  provided: Float32Array | undefined,
): Promise<HybridRanking> {
  const candidates = terms.length
    ? await source.searchCandidates(query.datapackIds, terms, query.kinds, MAX_CANDIDATES, true)
    : [];
  const matched = await candidateItems(source, candidates);
  const poolVersion = new Map(pool.items.map((item) => [item.id, item.version]));
  // A match the pool holds in another version (changed within the same millisecond) is taken as found.
  const outside = matched.filter((c) => poolVersion.get(c.id) !== c.version);
  const replaced = new Set(outside.map((c) => c.id));
  const kept: number[] = [];
  for (let i = 0; i < pool.items.length; i++) if (!replaced.has(pool.items[i]!.id)) kept.push(i);
  const items: PoolItem[] = [...kept.map((i) => pool.items[i]!), ...outside];
  if (items.length === 0) return { ranked: [], speakers: new Set() };
  const lexical = new Map(rankCandidates(matched, terms, liveCount, items.length).map((r) => [r.id, r.score]));
  const outsidePlaces = await turnPlaces(
    source,
    outside.filter((i) => i.kind === CAPTURED_KIND).map((i) => i.id),
  );
  const places = [...kept.map((i) => pool.places[i]), ...outside.map((i) => outsidePlaces.get(i.id))];
  const queryWords = words(query.text);
  const itemSpeakers = speakerIndex(places);
  const speakers = speakersNamed(itemSpeakers.names, queryWords);
  const topicWords = queryWords.filter((w) => !speakers.has(w));
  const embedder = source.embedder;
  const embedded =
    provided && embedder
      ? await providerScores(
          items,
          provided,
          embedder.model,
          (model, ids) => source.loadEmbeddings(model, ids),
          source.cache.providerVectors,
        )
      : undefined;
  const vector = embedded ? undefined : textVector(topicWords);
  const poolSemantic = vector && poolCosines(pool, vector);
  const poolFacet = poolFacetScores(pool, topicWords);
  const outsideFacet = facetScores(outside, topicWords);
  const n = items.length;
  const columns = {
    lexical: new Float64Array(n),
    semantic: new Float64Array(n).fill(Number.NaN),
    facet: new Float64Array(n),
  };
  for (let k = 0; k < n; k++) {
    const item = items[k]!;
    const inPool = k < kept.length;
    columns.lexical[k] = lexical.get(item.id) ?? 0;
    columns.facet[k] = inPool ? poolFacet[kept[k]!]! : (outsideFacet.get(item.id) ?? 0);
    if (embedded) columns.semantic[k] = embedded.get(item.id) ?? Number.NaN;
    else if (inPool) columns.semantic[k] = poolSemantic ? poolSemantic[kept[k]!]! : Number.NaN;
    else {
      const own = vector && entryVector(outside[k - kept.length]!, source.cache.vectors);
      if (vector && own) columns.semantic[k] = cosine(vector, own);
    }
  }
  const ranked = fuseColumns(
    items,
    columns,
    speakerBoosts(itemSpeakers, speakers),
    query.limit,
    sessions(items.map((item, k) => ({ id: item.id, turn: places[k] }))),
  );
  return { ranked, speakers };
}

import { BoundedCache } from '../cache/bounded-cache.js';
import { entryVector, type PoolItem, type RankedItem } from './search-cache.js';
import { words } from './search-ranking.js';
import { cosine, textVector } from './word-vectors.js';

/** The embeddings provider as search meets it (src/embeddings/embedder.ts); absent without CAIRN_EMBEDDINGS_URL. */
export interface QueryEmbedder {
  readonly model: string;
  /** The query's vector, or undefined when the provider cannot give it in time. */
  queryVector(text: string): Promise<Float32Array | undefined>;
  /** An entry was written: its new version needs a vector. */
  notify(): void;
}

type LoadEmbeddings = (
  model: string,
  entryIds: string[],
) => Promise<Map<string, { version: number; vector: Float32Array }>>;

/** Provider vectors of entries by model, id and version; bounded (a 768-d vector is 3 KB). */
const providerCache = new BoundedCache<string, Float32Array>(5_000);

/**
 * Each item's cosine to the query. With a provider that answered: its vectors, for the entries it
 * has embedded in their current version (the others get none until the embedder catches up).
 * Otherwise, or when it failed: the offline word vectors, of the query's words less `omit` (the
 * names of speakers: who said a turn is the speaker weighting's business, and a rare name would
 * outweigh the topic in the query's vector).
 */
export async function semanticScores(
  items: RankedItem[],
  text: string,
  provided: Float32Array | undefined,
  model: string | undefined,
  load: LoadEmbeddings,
  omit: ReadonlySet<string> = new Set(),
): Promise<Map<string, number>> {
  if (provided && model) return providerScores(items, provided, model, load);
  const scores = new Map<string, number>();
  const query = textVector(words(text).filter((w) => !omit.has(w)));
  if (!query) return scores;
  for (const i of items) {
    const vector = entryVector(i);
    if (vector) scores.set(i.id, cosine(query, vector));
  }
  return scores;
}

/** Each item's cosine to the query by the provider's vectors, for the entries it has embedded in their current version. */
export async function providerScores(
  items: readonly PoolItem[],
  provided: Float32Array,
  model: string,
  load: LoadEmbeddings,
): Promise<Map<string, number>> {
  const scores = new Map<string, number>();
  const key = (i: PoolItem) => `${model}:${i.id}:${i.version}`;
  const missing = items.filter((i) => !providerCache.has(key(i)));
  if (missing.length) {
    const loaded = await load(
      model,
      missing.map((i) => i.id),
    );
    for (const i of missing) {
      const found = loaded.get(i.id);
      if (found?.version !== i.version || found.vector.length !== provided.length) continue;
      providerCache.set(key(i), found.vector);
    }
  }
  for (const i of items) {
    const vector = providerCache.get(key(i));
    if (vector) scores.set(i.id, cosine(provided, vector));
  }
  return scores;
}

import type { BoundedCache } from '../cache/bounded-cache.js';
import type { PoolItem } from './search-cache.js';
import { cosine } from './word-vectors.js';

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

/** Each item's cosine to the query by the provider's vectors, for the entries it has embedded in their current version. */
export async function providerScores(
  items: readonly PoolItem[],
  provided: Float32Array,
  model: string,
  load: LoadEmbeddings,
  /** The store's provider vectors by model, id and version (SearchCache.providerVectors). */
  providerCache: BoundedCache<string, Float32Array>,
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

import type { BoundedCache } from '../cache/bounded-cache.js';
import { CAPTURED_KIND, type EntryWords } from './search-ranking.js';
import { textVector } from './word-vectors.js';

// The item ranking meets and its vector, apart from search-cache.ts so that the pool index can use
// them while that module's caches hold pools (no import cycle).

/**
 * An entry as a pool index holds it: what ranking returns and breaks ties by. Its words and vector
 * live in the index's postings and matrix, not on the item, so a pool costs a few hundred bytes
 * an entry instead of some 2.4 KB (bench/pool-memory.ts), and the default cache holds hundreds of users.
 */
export interface PoolItem {
  id: string;
  kind: string;
  version: number;
  updatedAt: string;
  /** Its datapack, when read for a pool (the near-duplicate check ranks one datapack's entries of a wider pool). */
  datapackId?: string;
}

/** A candidate with its words, as ranking meets it. */
export interface RankedItem extends PoolItem {
  words: EntryWords;
}

/**
 * The entry's vector, from its text: a captured turn's title is a snippet of its text and its tags
 * are bookkeeping, so only its text counts; other entries count title, tags and text. `held`: the
 * store's vectors by id and version (SearchCache.vectors), for entries ranked outside a pool; a
 * pool's index keeps its own copy, so building one passes none.
 */
export function entryVector(
  item: RankedItem,
  held?: BoundedCache<string, Float32Array | null>,
): Float32Array | undefined {
  const key = `${item.id}:${item.version}`;
  let vector = held?.get(key);
  if (vector === undefined) {
    const { title, tags, content } = item.words;
    vector = textVector(item.kind === CAPTURED_KIND ? content : [...title, ...tags, ...content]) ?? null;
    held?.set(key, vector);
  }
  return vector ?? undefined;
}

/** The item as a pool keeps it: its words left out (an item already kept is returned as it is). */
export function poolItem(item: PoolItem | RankedItem): PoolItem {
  if (!('words' in item)) return item;
  const { id, kind, version, updatedAt, datapackId } = item;
  return datapackId === undefined ? { id, kind, version, updatedAt } : { id, kind, version, updatedAt, datapackId };
}

/** An item a pool is about to index anew: it must come with its words (a kept one is copied from the old index instead). */
export function withWords(item: PoolItem | RankedItem): RankedItem {
  if (!('words' in item))
    throw new Error(`pool item ${item.id} has no words to index: only new or changed entries are indexed anew`);
  return item;
}

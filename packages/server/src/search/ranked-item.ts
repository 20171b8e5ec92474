import { BoundedCache } from '../cache/bounded-cache.js';
import { CAPTURED_KIND, type EntryWords } from './search-ranking.js';
import { textVector } from './word-vectors.js';

// The item ranking meets and its vector, apart from the caches of search-cache.ts so that the pool
// index can use them while that module keys its caches by the pool index (no import cycle).

/** A candidate with its words, as ranking meets it. */
export interface RankedItem {
  id: string;
  kind: string;
  version: number;
  updatedAt: string;
  words: EntryWords;
  /** Its datapack, when read for a pool (the near-duplicate check ranks one datapack's entries of a wider pool). */
  datapackId?: string;
  /** Its word-vector, once looked up (null: none); kept on the items search keeps between calls. */
  vector?: Float32Array | null;
}

const vectorCache = new BoundedCache<string, Float32Array | null>(20_000);

/**
 * The entry's vector, from its text: a captured turn's title is a snippet of its text and its tags
 * are bookkeeping, so only its text counts; other entries count title, tags and text.
 */
export function entryVector(item: RankedItem): Float32Array | undefined {
  if (item.vector !== undefined) return item.vector ?? undefined;
  const key = `${item.id}:${item.version}`;
  let vector = vectorCache.get(key);
  if (vector === undefined) {
    const { title, tags, content } = item.words;
    vector = textVector(item.kind === CAPTURED_KIND ? content : [...title, ...tags, ...content]) ?? null;
    vectorCache.set(key, vector);
  }
  return vector ?? undefined;
}

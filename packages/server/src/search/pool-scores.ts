import { int8Dots } from './int8-dots.js';
import type { Pool } from './pool.js';
import { lowerBound, type PoolIndex } from './pool-index.js';
import { bm25Idf1, bm25Norm, bm25Term, type Matcher, termMatchers } from './search-ranking.js';
import { VECTOR_DIMS } from './word-vectors.js';

// Scores of every item of a pool, segment by segment (pool.ts): each segment's items sit at its
// offset among the pool's, and what BM25 counts over items (document frequencies, mean length)
// is counted over the whole pool, so a pool of two segments scores as one index of them all would.

/** The columns of scratchColumns, kept between searches. */
let columnScratch = new Float64Array(0);

/**
 * Three columns of n scores for poolLexicalScores, poolCosines and poolFacetScores to fill, kept
 * between searches so that a search allocates none: only for a ranking that fills and fuses them
 * without yielding in between (rankPool), since the next search fills the same ones.
 */
export function scratchColumns(n: number): { lexical: Float64Array; semantic: Float64Array; facet: Float64Array } {
  if (columnScratch.length < 3 * n) columnScratch = new Float64Array(3 * n);
  return { lexical: columnScratch.subarray(0, n), semantic: columnScratch.subarray(n, 2 * n), facet: columnScratch.subarray(2 * n, 3 * n) };
}

/** One matcher's term frequencies by item, and the items it met: kept between searches (ranking is synchronous), zeroed after use. */
let tfScratch = new Float64Array(0);
let metScratch = new Int32Array(0);

/**
 * BM25 of every item for these terms, as rankCandidates (search-ranking.ts) scores the whole pool
 * given as candidates: document frequencies and mean length from the pool, `docCount` live
 * entries. 0 for an item that matches nothing. One matcher at a time, over the items it meets
 * only: each item adds its matchers' shares in their order, as rankCandidates does (a matcher
 * that misses an item adds 0 there, which changes no sum).
 */
export function poolLexicalScores(pool: Pool, terms: string[], docCount: number, scores: Float64Array = new Float64Array(pool.items.length)): Float64Array {
  const n = pool.items.length;
  scores.fill(0);
  const matchers = termMatchers(terms);
  if (n === 0 || matchers.length === 0) return scores;
  if (tfScratch.length < n) {
    tfScratch = new Float64Array(n);
    metScratch = new Int32Array(n);
  }
  const tf = tfScratch;
  const items = metScratch;
  const documents = Math.max(docCount, n);
  const norms = normsOf(pool);
  for (const matcher of matchers) {
    let met = 0;
    for (const [segment, offset] of segmentsOf(pool)) {
      const { postingStarts, postingItems, postingWeights } = segment;
      for (const word of matchedWords(segment, matcher)) {
        for (let k = postingStarts[word]!; k < postingStarts[word + 1]!; k++) {
          const i = offset + postingItems[k]!;
          if (tf[i] === 0) items[met++] = i;
          tf[i] = tf[i]! + postingWeights[k]!;
        }
      }
    }
    const idf = bm25Idf1(met, documents);
    for (let k = 0; k < met; k++) {
      const i = items[k]!;
      scores[i] = scores[i]! + bm25Term(idf, tf[i]!, norms[i]!);
      tf[i] = 0;
    }
  }
  return scores;
}

/** Each pool's BM25 length normalizations, by item: found on its first lexical ranking, kept while the pool is. */
const poolNorms = new WeakMap<Pool, Float64Array>();

/** Each item's BM25 length normalization (bm25Norm of its length against the whole pool's mean). */
function normsOf(pool: Pool): Float64Array {
  let norms = poolNorms.get(pool);
  if (norms) return norms;
  norms = new Float64Array(pool.items.length);
  // Loops, not Float64Array.from(lengths, map): that goes through the iterator protocol.
  for (const [segment, offset] of segmentsOf(pool)) for (let i = 0; i < segment.lengths.length; i++) norms[offset + i] = bm25Norm(segment.lengths[i]!, pool.avgLength);
  poolNorms.set(pool, norms);
  return norms;
}

/** The pool's segments with the place of each one's first item among the pool's items. */
export function segmentsOf(pool: Pool): [PoolIndex, number][] {
  return pool.recent
    ? [
        [pool.recent, 0],
        [pool.main, pool.recent.items.length],
      ]
    : [[pool.main, 0]];
}

/**
 * Which items hold one of the terms as a word (its light stem), not only a word its stem begins:
 * the lexical ranking's candidates, as the full-text index finds them without prefixes (1: held).
 */
export function poolWordMatches(pool: Pool, terms: string[]): Uint8Array {
  const held = new Uint8Array(pool.items.length);
  for (const matcher of termMatchers(terms)) {
    if (matcher.prefix !== undefined) continue;
    for (const [segment, offset] of segmentsOf(pool))
      for (const word of matchedWords(segment, matcher)) for (let k = segment.postingStarts[word]!; k < segment.postingStarts[word + 1]!; k++) held[offset + segment.postingItems[k]!] = 1;
  }
  return held;
}

/** Each item's cosine to the query vector (NaN for an item without a vector). */
export function poolCosines(pool: Pool, query: Float32Array, out: Float64Array = new Float64Array(pool.items.length)): Float64Array {
  for (const [segment, offset] of segmentsOf(pool)) {
    const n = segment.items.length;
    const { vectors, scales } = segment;
    const part = out.subarray(offset, offset + n);
    int8Dots(query, vectors, n, VECTOR_DIMS, part);
    for (let i = 0; i < n; i++) part[i] = scales[i] === 0 ? Number.NaN : part[i]! * scales[i]!;
  }
  return out;
}

/** The index's words (their places in the vocabulary) a matcher accepts: those with its light stem, and those starting with its prefix. */
function matchedWords(index: PoolIndex, m: Matcher): number[] {
  const found: number[] = [];
  const [from, to] = m.prefix === undefined ? [0, 0] : prefixRange(index.vocabulary, m.prefix);
  for (let k = from; k < to; k++) found.push(k);
  // Words whose light stem is `same` start with it: they sit in `same`'s prefix range.
  const [lo, hi] = prefixRange(index.vocabulary, m.same);
  for (let k = lo; k < hi; k++) if ((k < from || k >= to) && m.accepts(index.vocabulary[k]!)) found.push(k);
  return found;
}

/** Where the words of a sorted list that start with `prefix` begin and end (the end excluded). */
function prefixRange(sorted: string[], prefix: string): [number, number] {
  const lo = lowerBound(sorted, prefix);
  let end = lo;
  while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
  return [lo, end];
}

import { int8Dots } from './int8-dots.js';
import type { Pool } from './pool.js';
import { lowerBound, type PoolIndex } from './pool-index.js';
import { bm25Idf1, bm25Norm, bm25Term, type Matcher, termMatchers } from './search-ranking.js';
import { topScores } from './top-scores.js';
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

/** Per item, kept between rankings (they are synchronous) and zeroed after use: one matcher's term frequencies, its items' BM25 norms, and whether a term held it as a word. */
let tfScratch = new Float64Array(0);
let normScratch = new Float64Array(0);
let heldScratch = new Uint8Array(0);
/** The items one matcher met, then the items any matcher met (poolLexicalTop). */
let metScratch = new Int32Array(0);
let touchedScratch = new Int32Array(0);
/** A dense column of poolLexicalTop's scores, zero but where it is ranking. */
let topScratch = new Float64Array(0);

function scratchFor(n: number): void {
  if (tfScratch.length >= n) return;
  tfScratch = new Float64Array(n);
  normScratch = new Float64Array(n);
  heldScratch = new Uint8Array(n);
  metScratch = new Int32Array(n);
  touchedScratch = new Int32Array(n);
  topScratch = new Float64Array(n);
}

/**
 * BM25 of every item for these terms, as rankCandidates (search-ranking.ts) scores the whole pool
 * given as candidates: document frequencies and mean length from the pool, `docCount` live
 * entries. 0 for an item that matches nothing.
 */
export function poolLexicalScores(pool: Pool, terms: string[], docCount: number, scores: Float64Array = new Float64Array(pool.items.length)): Float64Array {
  scores.fill(0);
  addLexicalScores(pool, termMatchers(terms), docCount, scores);
  return scores;
}

/**
 * The near-duplicate check's ranking: the `limit` best items by poolLexicalScores among those a
 * term holds as a word (poolWordMatches) and, given `only`, of that datapack; ties as topScores
 * breaks them. The same answer as scoring the whole pool, but only the items the terms meet are
 * touched, so a save costs what its words' postings do, not what the pool's size does.
 */
export function poolLexicalTop(pool: Pool, terms: string[], docCount: number, limit: number, only?: string): { id: string; score: number }[] {
  scratchFor(pool.items.length);
  const scores = topScratch;
  const touched = addLexicalScores(pool, termMatchers(terms), docCount, scores, true);
  const kept: number[] = [];
  for (let k = 0; k < touched; k++) {
    const i = touchedScratch[k]!;
    if (heldScratch[i] && (!only || pool.items[i]!.datapackId === only)) kept.push(i);
    heldScratch[i] = 0;
  }
  const best = topScores(pool.items, scores, limit, kept);
  for (let k = 0; k < touched; k++) scores[touchedScratch[k]!] = 0;
  return best;
}

/**
 * Adds each matcher's BM25 share to the items it meets, one matcher at a time and over those items
 * only: each item adds its matchers' shares in their order, as rankCandidates does (a matcher that
 * misses an item adds 0 there, which changes no sum). With `track`, also lists in touchedScratch
 * the items met (`scores` must be 0 where untouched) and marks in heldScratch those a word-only
 * matcher met; returns how many were listed.
 */
function addLexicalScores(pool: Pool, matchers: Matcher[], docCount: number, scores: Float64Array, track = false): number {
  const n = pool.items.length;
  if (n === 0 || matchers.length === 0) return 0;
  scratchFor(n);
  const tf = tfScratch;
  const norms = normScratch;
  const items = metScratch;
  const documents = Math.max(docCount, n);
  let touched = 0;
  for (const matcher of matchers) {
    let met = 0;
    for (const [segment, offset] of segmentsOf(pool)) {
      const { postingStarts, postingItems, postingWeights, lengths } = segment;
      for (const word of matchedWords(segment, matcher)) {
        for (let k = postingStarts[word]!; k < postingStarts[word + 1]!; k++) {
          const item = postingItems[k]!;
          const i = offset + item;
          if (tf[i] === 0) {
            items[met++] = i;
            // Found here, not kept per pool: each save makes a new pool with another mean length.
            norms[i] = bm25Norm(lengths[item]!, pool.avgLength);
          }
          tf[i] = tf[i]! + postingWeights[k]!;
        }
      }
    }
    const idf = bm25Idf1(met, documents);
    const word = matcher.prefix === undefined;
    for (let k = 0; k < met; k++) {
      const i = items[k]!;
      if (track) {
        // bm25Term of a met item is above 0 (tf ≥ 1, idf ≥ its floor): 0 means not yet listed.
        if (scores[i] === 0) touchedScratch[touched++] = i;
        if (word) heldScratch[i] = 1;
      }
      scores[i] = scores[i]! + bm25Term(idf, tf[i]!, norms[i]!);
      tf[i] = 0;
    }
  }
  return touched;
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

import { int8Dots } from './int8-dots.js';
import { itemAt, type Pool } from './pool.js';
import { lowerBound, type PoolIndex } from './pool-index.js';
import type { PoolItem } from './ranked-item.js';
import { scratchLength } from './scratch.js';
import { bm25Idf1, bm25Norm, bm25Term, type Matcher, termMatchers } from './search-ranking.js';
import { topScores } from './top-scores.js';
import { VECTOR_DIMS } from './word-vectors.js';

// Scores of every item of a pool, segment by segment (pool.ts): each segment's items sit at its
// offset among the pool's, and what BM25 counts over items (document frequencies, mean length)
// is counted over the whole pool, so a pool of two segments scores as one index of them all would.

// Module-level on purpose: scratch of one synchronous pass, written before it is read, so Cairns in one process may share it.
/** The columns of scratchColumns, kept between searches. */
let columnScratch = new Float64Array(0);

/**
 * Three columns of n scores for poolLexicalScores, poolCosines and poolFacetScores to fill, kept
 * between searches so that a search allocates none: only for a ranking that fills and fuses them
 * without yielding in between (rankPool), since the next search fills the same ones.
 */
export function scratchColumns(n: number): { lexical: Float64Array; semantic: Float64Array; facet: Float64Array } {
  if (columnScratch.length < 3 * n) columnScratch = new Float64Array(3 * scratchLength(n));
  return {
    lexical: columnScratch.subarray(0, n),
    semantic: columnScratch.subarray(n, 2 * n),
    facet: columnScratch.subarray(2 * n, 3 * n),
  };
}

/** Per item, kept between rankings (they are synchronous) and zeroed after use: one matcher's term frequencies and its items' BM25 norms. */
let tfScratch = new Float64Array(0);
let normScratch = new Float64Array(0);
/** The items one matcher met, then the items any matcher met (poolDuplicateCandidates). */
let metScratch = new Int32Array(0);
let touchedScratch = new Int32Array(0);
/** A dense column of poolDuplicateCandidates' scores, zero but where it is ranking. */
let candidateScratch = new Float64Array(0);

function scratchFor(n: number): void {
  if (tfScratch.length >= n) return;
  const size = scratchLength(n);
  tfScratch = new Float64Array(size);
  normScratch = new Float64Array(size);
  metScratch = new Int32Array(size);
  touchedScratch = new Int32Array(size);
  candidateScratch = new Float64Array(size);
}

/**
 * BM25 of every item for these terms, as rankCandidates (search-ranking.ts) scores the whole pool
 * given as candidates: document frequencies and mean length from the pool, `docCount` live
 * entries. 0 for an item that matches nothing.
 */
export function poolLexicalScores(
  pool: Pool,
  terms: string[],
  docCount: number,
  scores: Float64Array = new Float64Array(pool.size),
): Float64Array {
  scores.fill(0);
  addLexicalScores(pool, planned(pool, termMatchers(terms)), docCount, scores);
  return scores;
}

/** How many of a text's terms the near-duplicate check ranks by: the rarest the pool holds. */
export const DUPLICATE_TERMS = 8;

/**
 * The near-duplicate check's candidates: the `limit` best items, of datapack `only` when given, by
 * BM25 over the DUPLICATE_TERMS rarest of the text's terms that the pool holds, each as a word
 * (no prefix of its stem: a near-duplicate repeats the words themselves); ties as topScores breaks
 * them. An entry that says nearly what the text says holds some 80% of its terms (similarity.ts),
 * so at least half of any eight of them, rare words that few other entries share, while the
 * commonest terms (a date, a name, "note" in every note) would read half the pool's postings to
 * add next to nothing. Only the items those terms meet are touched: a save costs what its rare
 * words' postings do, not what the pool's size does.
 */
export function poolDuplicateCandidates(
  pool: Pool,
  terms: string[],
  docCount: number,
  limit: number,
  only?: string,
): { id: string; score: number }[] {
  scratchFor(pool.size);
  const words = planned(
    pool,
    termMatchers(terms).filter((m) => m.prefix === undefined),
  );
  // A stable sort: terms as rare as each other keep the text's order.
  const rarest = words
    .filter((plan) => plan.postings > 0)
    .sort((x, y) => x.postings - y.postings)
    .slice(0, DUPLICATE_TERMS);
  const scores = candidateScratch;
  const touched = addLexicalScores(pool, rarest, docCount, scores, true);
  const items: PoolItem[] = [];
  const kept = new Float64Array(touched);
  for (let k = 0; k < touched; k++) {
    const i = touchedScratch[k]!;
    const item = itemAt(pool, i);
    if (!only || item.datapackId === only) kept[items.push(item) - 1] = scores[i]!;
    scores[i] = 0;
  }
  return topScores(items, kept, limit);
}

/** One matcher as the pool's segments see it. */
interface Plan {
  /** Its words in each segment, in the order of segmentsOf (matchedWords). */
  found: number[][];
  /** How many postings its words have: how common it is, the same however the pool is split in segments. */
  postings: number;
}

function planned(pool: Pool, matchers: Matcher[]): Plan[] {
  const segments = segmentsOf(pool);
  return matchers.map((matcher) => {
    let postings = 0;
    const found = segments.map(([segment]) => {
      const words = matchedWords(segment, matcher);
      for (const w of words) postings += segment.postingStarts[w + 1]! - segment.postingStarts[w]!;
      return words;
    });
    return { found, postings };
  });
}

/**
 * Adds each matcher's BM25 share to the items it meets, one matcher at a time and over those items
 * only: each item adds its matchers' shares in their order, as rankCandidates does (a matcher that
 * misses an item adds 0 there, which changes no sum). With `track`, also lists in touchedScratch
 * the items met (`scores` must be 0 where untouched); returns how many were listed.
 */
function addLexicalScores(pool: Pool, plans: Plan[], docCount: number, scores: Float64Array, track = false): number {
  const n = pool.size;
  if (n === 0 || plans.length === 0) return 0;
  scratchFor(n);
  const tf = tfScratch;
  const norms = normScratch;
  const items = metScratch;
  const documents = Math.max(docCount, n);
  const { avgLength } = pool;
  const segments = segmentsOf(pool);
  let touched = 0;
  for (const plan of plans) {
    if (plan.found.every((words) => words.length <= 1)) {
      touched = addOneWord(segments, plan, documents, avgLength, scores, track, touched);
      continue;
    }
    let met = 0;
    for (let s = 0; s < segments.length; s++) {
      const [segment, offset] = segments[s]!;
      const { postingStarts, postingItems, postingWeights, lengths } = segment;
      for (const word of plan.found[s]!) {
        for (let k = postingStarts[word]!; k < postingStarts[word + 1]!; k++) {
          const item = postingItems[k]!;
          const i = offset + item;
          if (tf[i] === 0) {
            items[met++] = i;
            // Found here, not kept per pool: each save makes a new pool with another mean length.
            norms[i] = bm25Norm(lengths[item]!, avgLength);
          }
          tf[i] = tf[i]! + postingWeights[k]!;
        }
      }
    }
    const idf = bm25Idf1(met, documents);
    for (let k = 0; k < met; k++) {
      const i = items[k]!;
      // bm25Term of a met item is above 0 (tf ≥ 1, idf ≥ its floor): 0 means not yet listed.
      if (track && scores[i] === 0) touchedScratch[touched++] = i;
      scores[i] = scores[i]! + bm25Term(idf, tf[i]!, norms[i]!);
      tf[i] = 0;
    }
  }
  return touched;
}

/**
 * addLexicalScores for a matcher of at most one word per segment (most are: a word no other of the
 * pool's words shares a stem with): each posting is an item of its own, the word's count there is
 * its term frequency, and the postings are its document frequency, so the shares are added as the
 * postings are read, with no per-item tally to gather and clear.
 */
function addOneWord(
  segments: [PoolIndex, number][],
  plan: Plan,
  documents: number,
  avgLength: number,
  scores: Float64Array,
  track: boolean,
  touched: number,
): number {
  const idf = bm25Idf1(plan.postings, documents);
  for (let s = 0; s < segments.length; s++) {
    const word = plan.found[s]![0];
    if (word === undefined) continue;
    const [segment, offset] = segments[s]!;
    const { postingStarts, postingItems, postingWeights, lengths } = segment;
    const end = postingStarts[word + 1]!;
    for (let k = postingStarts[word]!; k < end; k++) {
      const item = postingItems[k]!;
      const i = offset + item;
      if (track && scores[i] === 0) touchedScratch[touched++] = i;
      scores[i] = scores[i]! + bm25Term(idf, postingWeights[k]!, bm25Norm(lengths[item]!, avgLength));
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
export function poolCosines(
  pool: Pool,
  query: Float32Array,
  out: Float64Array = new Float64Array(pool.size),
): Float64Array {
  for (const [segment, offset] of segmentsOf(pool)) {
    const n = segment.items.length;
    const { vectors, scales } = segment;
    const part = out.subarray(offset, offset + n);
    int8Dots(query, vectors, n, VECTOR_DIMS, part, { scales });
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

import type { Pool } from './pool.js';
import { placeOfRow } from './pool-index.js';
import { segmentsOf } from './pool-scores.js';
import { scratchLength } from './scratch.js';
import type { RankedItem } from './search-cache.js';
import { CAPTURED_KIND } from './search-ranking.js';
import { neighboursOf } from './word-neighbours.js';
import { rowWeight, tableSize, wordRow } from './word-vectors.js';

/**
 * Facets: each content word of a query is a facet, and an entry scores, for each facet, how close
 * its closest word comes to it in the offline word vectors. An averaged sentence vector blurs one
 * telling word among twenty ("Where did John travel?" against "Took a short trip last week to Rome
 * to clear my mind a little"); the closest word does not (travel and trip: 0.74). So each part of
 * a question finds the turns that say it in other words (kids: children, paint: painting), in
 * whichever session they were said, which multi-hop questions need. A word closer than the floor
 * (word-neighbours.ts) counts, scaled from 0 at the floor to 1 for the word itself; facets weigh
 * like SIF (rare words more), and the score is the weighted share of the query's facets an entry meets.
 */

/** At most this many facets per query (the first ones): long prompts add noise and cost. */
const MAX_FACETS = 12;
/** The closeness byte of the word itself. */
const SELF = 255;

/**
 * The table's rows are in order of frequency: its 100 most frequent words ("out", "first", "new")
 * are no facets and meet none. Common words sit close to one another (near and out: 0.53), so they
 * would match any text; measured on dev, leaving them out changes no figure by more than 1 point.
 */
const COMMON = 100;
/** A word's row, or -1 when it has none, is a stop word or is among the COMMON most frequent. */
function facetRow(word: string): number {
  const row = wordRow(word);
  return row >= COMMON ? row : -1;
}

/** The query's facets: rows of its distinct content words, the first MAX_FACETS. */
function facetRows(queryWords: readonly string[]): number[] {
  return [...new Set(queryWords.map(facetRow).filter((r) => r >= 0))].slice(0, MAX_FACETS);
}

// Module-level on purpose: keyed weakly by the item itself, which one Cairn's SearchCache holds, so nothing is shared.
/** Each entry's distinct facet rows (kept with the item, which search keeps between calls). */
const entryRows = new WeakMap<RankedItem, Int32Array>();

function rowsOf(item: RankedItem): Int32Array {
  let rows = entryRows.get(item);
  if (rows) return rows;
  const { title, tags, content } = item.words;
  const seen = new Set<number>();
  for (const list of item.kind === CAPTURED_KIND ? [content] : [title, tags, content]) {
    for (const w of list) {
      const row = facetRow(w);
      if (row >= 0) seen.add(row);
    }
  }
  rows = Int32Array.from(seen);
  entryRows.set(item, rows);
  return rows;
}

// Module-level on purpose: scratch of one synchronous pass, cleared after use, so Cairns in one process may share it.
/** Closeness bytes by table row for one facet at a time (set, used, then cleared again). */
let nearScratch = new Uint8Array(0);
/**
 * Per pool item, the last facet of this search that reached it (its place among the facets plus
 * one; 0: none yet), cleared per search. A byte, not a stamp kept across searches: the pool's
 * items then take a quarter of the cache lines that the scatter of postings below writes into.
 */
let reachedScratch = new Uint8Array(0);

/** Each item's facet score, for entries not held in a pool index (0 to 1; items that meet no facet are left out). `queryWords` without speakers' names. */
export function facetScores(items: readonly RankedItem[], queryWords: readonly string[]): Map<string, number> {
  const scores = new Map<string, number>();
  const rows = facetRows(queryWords);
  if (rows.length === 0) return scores;
  if (nearScratch.length < tableSize()) nearScratch = new Uint8Array(tableSize());
  const near = nearScratch;
  const weights = rows.map(rowWeight);
  const total = weights.reduce((s, w) => s + w, 0);
  const own = items.map(rowsOf);
  const sums = new Float64Array(items.length);
  rows.forEach((row, f) => {
    const close = neighboursOf(row);
    for (let k = 0; k < close.rows.length; k++) near[close.rows[k]!] = close.bytes[k]!;
    near[row] = SELF;
    for (let i = 0; i < items.length; i++) {
      const list = own[i]!;
      let best = 0;
      for (let j = 0; j < list.length; j++) if (near[list[j]!]! > best) best = near[list[j]!]!;
      if (best > 1) sums[i] = sums[i]! + (weights[f]! * (best - 1)) / 254;
    }
    for (let k = 0; k < close.rows.length; k++) near[close.rows[k]!] = 0;
    near[row] = 0;
  });
  for (let i = 0; i < items.length; i++) if (sums[i]! > 0) scores.set(items[i]!.id, sums[i]! / total);
  return scores;
}

/**
 * facetScores over a pool index, item by item (0 when an item meets no facet): only the words
 * close to a facet are looked up, and reach their items through the index's postings. A facet's
 * words are met closest first (the facet itself, then its neighbours, which are listed closest
 * first), so the first word to reach an item is its closest: it scores it, and the rest pass it by.
 */
export function poolFacetScores(
  pool: Pool,
  queryWords: readonly string[],
  scores: Float64Array = new Float64Array(pool.size),
): Float64Array {
  const n = pool.size;
  scores.fill(0);
  const rows = facetRows(queryWords);
  if (rows.length === 0 || n === 0) return scores;
  if (reachedScratch.length < n) reachedScratch = new Uint8Array(scratchLength(n));
  const reached = reachedScratch;
  reached.fill(0, 0, n);
  const weights = rows.map(rowWeight);
  const total = weights.reduce((s, w) => s + w, 0);
  const segments = segmentsOf(pool);
  for (let f = 0; f < rows.length; f++) {
    const facet = f + 1;
    const w = weights[f]! / total / 254;
    const close = neighboursOf(rows[f]!);
    // The segments hold different items: each is reached closest word first on its own.
    for (const [segment, offset] of segments) {
      const { postingStarts, postingItems, wordsByRow } = segment;
      // k = -1 is the facet's own word, then its neighbours.
      for (let k = -1; k < close.rows.length; k++) {
        const word = placeOfRow(wordsByRow, k < 0 ? rows[f]! : close.rows[k]!);
        if (word < 0) continue;
        const score = w * ((k < 0 ? SELF : close.bytes[k]!) - 1);
        const end = postingStarts[word + 1]!;
        for (let p = postingStarts[word]!; p < end; p++) {
          const i = offset + postingItems[p]!;
          // 1 when no closer word of this facet reached the item (it holds an earlier facet's
          // number, so a smaller one), else 0: no branch to mispredict, and adding 0 changes nothing.
          scores[i] = scores[i]! + score * ((reached[i]! - facet) >>> 31);
          reached[i] = facet;
        }
      }
    }
  }
  return scores;
}

import type { PoolIndex } from './pool-index.js';
import type { RankedItem } from './search-cache.js';
import { CAPTURED_KIND } from './search-ranking.js';
import { rowCosine, rowCosines, rowWeight, unitRowVector, wordRow } from './word-vectors.js';

/**
 * Facets: each content word of a query is a facet, and an entry scores, for each facet, how close
 * its closest word comes to it in the offline word vectors. An averaged sentence vector blurs one
 * telling word among twenty ("Where did John travel?" against "Took a short trip last week to Rome
 * to clear my mind a little"); the closest word does not (travel and trip: 0.74). So each part of
 * a question finds the turns that say it in other words (kids: children, paint: painting), in
 * whichever session they were said, which multi-hop questions need. A word closer than
 * FACET_FLOOR counts, scaled from 0 at the floor to 1 for the word itself; facets weigh like SIF
 * (rare words more), and the score is the weighted share of the query's facets an entry meets.
 */
const FACET_FLOOR = 0.5;
/** At most this many facets per query (the first ones): long prompts add noise and cost. */
const MAX_FACETS = 12;

/** Table rows of the words entries use, as dense ids, so similarities are kept in flat arrays. */
const denseId = new Map<number, number>();
const denseRows: number[] = [];
/** Each entry's distinct words as dense ids (kept with the item, which search keeps between calls). */
const entryIds = new WeakMap<RankedItem, Int32Array>();
/**
 * Per facet word (table row): how close each dense id's word comes, as a byte: 0 not yet computed,
 * 1 at or below the floor, 2–255 from just above it to the word itself. Kept between searches (a
 * user's questions keep using the same words) within 4 MB, oldest out first: 800 words when
 * entries use 5,000 distinct words, 80 when they use the whole table's 50,000.
 */
const closeness = new Map<number, Uint8Array>();
const CLOSENESS_CACHE_BYTES = 4 * 1024 * 1024;
let closenessBytes = 0;

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

/** A word's dense id, or -1 when it has no vector (or is a stop word). */
function denseIdOf(word: string): number {
  const row = facetRow(word);
  if (row < 0) return -1;
  let id = denseId.get(row);
  if (id === undefined) {
    id = denseRows.length;
    denseId.set(row, id);
    denseRows.push(row);
  }
  return id;
}

function idsOf(item: RankedItem): Int32Array {
  let ids = entryIds.get(item);
  if (ids) return ids;
  const { title, tags, content } = item.words;
  const seen = new Set<number>();
  for (const list of item.kind === CAPTURED_KIND ? [content] : [title, tags, content]) {
    for (const w of list) {
      const id = denseIdOf(w);
      if (id >= 0) seen.add(id);
    }
  }
  ids = Int32Array.from(seen);
  entryIds.set(item, ids);
  return ids;
}

/** A facet's closeness bytes, covering every dense id known so far. */
function closenessOf(row: number): Uint8Array {
  let known = closeness.get(row);
  closeness.delete(row);
  if (!known || known.length < denseRows.length) {
    const grown = new Uint8Array(Math.max(Math.ceil(denseRows.length * 1.25), 1024));
    if (known) {
      grown.set(known);
      closenessBytes -= known.length;
    }
    known = grown;
    closenessBytes += known.length;
    while (closenessBytes > CLOSENESS_CACHE_BYTES && closeness.size) {
      const oldest = closeness.keys().next().value!;
      closenessBytes -= closeness.get(oldest)!.length;
      closeness.delete(oldest);
    }
  }
  closeness.set(row, known);
  return known;
}

/** The closeness byte of a cosine. */
function closenessByte(cosine: number): number {
  return cosine > FACET_FLOOR ? 2 + Math.round((253 * (Math.min(cosine, 1) - FACET_FLOOR)) / (1 - FACET_FLOOR)) : 1;
}

/** Each item's facet score, for entries not held in a pool index (0 to 1; items that meet no facet are left out). `queryWords` without speakers' names. */
export function facetScores(items: readonly RankedItem[], queryWords: readonly string[]): Map<string, number> {
  const scores = new Map<string, number>();
  const rows = [...new Set(queryWords.map(facetRow).filter((r) => r >= 0))].slice(0, MAX_FACETS);
  if (rows.length === 0) return scores;
  const ids = items.map(idsOf);
  const near = rows.map(closenessOf);
  const units = rows.map(unitRowVector);
  const weights = rows.map(rowWeight);
  const total = weights.reduce((s, w) => s + w, 0);
  for (let k = 0; k < items.length; k++) {
    const own = ids[k]!;
    let score = 0;
    for (let f = 0; f < rows.length; f++) {
      const facet = near[f]!;
      let best = 1;
      for (let j = 0; j < own.length; j++) {
        const id = own[j]!;
        let b = facet[id]!;
        if (b === 0) {
          b = closenessByte(rowCosine(units[f]!, denseRows[id]!));
          facet[id] = b;
        }
        if (b > best) best = b;
      }
      if (best > 1) score += (weights[f]! * (best - 1)) / 254;
    }
    if (score > 0) scores.set(items[k]!.id, score / total);
  }
  return scores;
}

/** Work arrays of poolFacetScores, kept between searches (scoring is synchronous) and grown as needed. */
let scratch = { best: new Uint8Array(0), missing: new Int32Array(0), missingRows: new Int32Array(0), cosines: new Float32Array(0) };

function scratchFor(items: number, words: number): typeof scratch {
  if (scratch.best.length < items) scratch.best = new Uint8Array(items);
  if (scratch.missing.length < words) scratch = { ...scratch, missing: new Int32Array(words), missingRows: new Int32Array(words), cosines: new Float32Array(words) };
  return scratch;
}

/** A pool index's words as dense ids (-1: no vector), kept with the index. */
const vocabularyIds = new WeakMap<PoolIndex, Int32Array>();

/**
 * facetScores over a pool index, item by item (0 when an item meets no facet): a facet compares
 * itself with the pool's distinct words once, then only the words close to it reach their items
 * through the index's postings.
 */
export function poolFacetScores(pool: PoolIndex, queryWords: readonly string[]): Float64Array {
  const n = pool.items.length;
  const scores = new Float64Array(n);
  const rows = [...new Set(queryWords.map(facetRow).filter((r) => r >= 0))].slice(0, MAX_FACETS);
  if (rows.length === 0 || n === 0) return scores;
  let ids = vocabularyIds.get(pool);
  if (!ids) {
    ids = Int32Array.from(pool.vocabulary, denseIdOf);
    vocabularyIds.set(pool, ids);
  }
  const weights = rows.map(rowWeight);
  const total = weights.reduce((s, w) => s + w, 0);
  const { best, missing, missingRows, cosines } = scratchFor(n, ids.length);
  rows.forEach((row, f) => {
    const known = closenessOf(row);
    // The words this facet has not met yet, compared in one pass.
    let count = 0;
    for (let v = 0; v < ids.length; v++) {
      const id = ids[v]!;
      if (id >= 0 && known[id] === 0) {
        missing[count] = id;
        missingRows[count++] = denseRows[id]!;
      }
    }
    if (count) {
      rowCosines(unitRowVector(row), missingRows, count, cosines);
      for (let k = 0; k < count; k++) known[missing[k]!] = closenessByte(cosines[k]!);
    }
    best.fill(0, 0, n);
    for (let v = 0; v < ids.length; v++) {
      const id = ids[v]!;
      if (id < 0 || known[id]! < 2) continue;
      const b = known[id]!;
      const at = pool.postings.get(pool.vocabulary[v]!)!.at;
      for (let k = 0; k < at.length; k++) if (best[at[k]!]! < b) best[at[k]!] = b;
    }
    const w = weights[f]! / total / 254;
    for (let i = 0; i < n; i++) if (best[i]! > 1) scores[i] = scores[i]! + w * (best[i]! - 1);
  });
  return scores;
}

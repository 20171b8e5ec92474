import { type SpeakerIndex, sessions, speakerIndex, type TurnPlace } from './hybrid-ranking.js';
import { int8Dots } from './int8-dots.js';
import { entryVector, type RankedItem } from './search-cache.js';
import { bm25Idf, bm25Norm, bm25Term, type Matcher, termMatchers, titleWeight, WEIGHTS } from './search-ranking.js';
import { VECTOR_DIMS, wordRow } from './word-vectors.js';

/**
 * A caller's pool of entries (all their live entries, when they have no more than the pool holds)
 * indexed in memory once per change of those datapacks: an inverted index of their words and one
 * matrix of their word vectors. A search then scores every entry with a few array passes instead
 * of a full-text query and thousands of small objects, and ranks the same way on both backends.
 */
export interface PoolIndex {
  items: RankedItem[];
  /** Where each item sits in its conversation (undefined: not a captured turn of a known session). */
  places: (TurnPlace | undefined)[];
  /** The items' positions by conversation session, each in the order said (see fuseRanking). */
  sessions: number[][];
  /** The items' speakers: a search asks about each distinct speaker, not each turn. */
  speakers: SpeakerIndex;
  /**
   * Item word vectors as 8-bit integers, row i at i × VECTOR_DIMS, times `scales[i]` (0 for an item
   * without a vector): a quarter of float32's bytes, so at the 50,000-entry cap the pools' matrices
   * hold 5 MB instead of 20 (each item keeps its float32 vector as well, for rankFound: another
   * 20 MB at the cap). The cosines move by less than 0.01; recall on LoCoMo dev is unchanged.
   */
  vectors: Int8Array;
  scales: Float32Array;
  /** Words in field-weighted count per item: the BM25 term frequency of that word alone. */
  postings: Map<string, { at: Int32Array; weight: Float64Array }>;
  /** The index's words, sorted, for prefix look-ups. */
  vocabulary: string[];
  /** The items of each word that has a row in the word-vector table (stop words have none): facets look words up by row (itemsOfRow). */
  itemsByRow: RowTable;
  /** Each item's length in words (title, tags and text), as BM25 normalizes it, and their mean. */
  lengths: Int32Array;
  avgLength: number;
}

export function buildPoolIndex(items: RankedItem[], places: (TurnPlace | undefined)[]): PoolIndex {
  const n = items.length;
  const vectors = new Int8Array(n * VECTOR_DIMS);
  const scales = new Float32Array(n);
  const lengths = new Int32Array(n);
  const lists = new Map<string, { at: number[]; weight: number[] }>();
  items.forEach((item, i) => {
    const vector = entryVector(item);
    // Kept on the item too: a caller with more entries than the pool ranks its items outside the index.
    item.vector = vector ?? null;
    if (vector) {
      let max = 0;
      for (const x of vector) max = Math.max(max, Math.abs(x));
      if (max > 0) {
        scales[i] = max / 127;
        for (let d = 0; d < VECTOR_DIMS; d++) vectors[i * VECTOR_DIMS + d] = Math.round(vector[d]! / scales[i]!);
      }
    }
    const { title, tags, content } = item.words;
    lengths[i] = title.length + tags.length + content.length;
    const counts = new Map<string, number>();
    const add = (list: string[], weight: number) => {
      for (const w of list) counts.set(w, (counts.get(w) ?? 0) + weight);
    };
    add(title, titleWeight(item.kind));
    add(tags, WEIGHTS.tags);
    add(content, WEIGHTS.content);
    for (const [word, weight] of counts) {
      let list = lists.get(word);
      if (!list) {
        list = { at: [], weight: [] };
        lists.set(word, list);
      }
      list.at.push(i);
      list.weight.push(weight);
    }
  });
  const postings = new Map<string, { at: Int32Array; weight: Float64Array }>();
  const byRow = new Map<number, Int32Array>();
  for (const [word, list] of lists) {
    const at = Int32Array.from(list.at);
    postings.set(word, { at, weight: Float64Array.from(list.weight) });
    const row = wordRow(word);
    if (row >= 0) byRow.set(row, at);
  }
  const avgLength = lengths.reduce((sum, l) => sum + l, 0) / n || 1;
  return {
    items,
    places,
    sessions: sessions(items.map((item, i) => ({ id: item.id, turn: places[i] }))),
    speakers: speakerIndex(places),
    vectors,
    scales,
    postings,
    vocabulary: [...lists.keys()].sort(),
    itemsByRow: rowTable(byRow),
    lengths,
    avgLength,
  };
}

/**
 * Postings by word-vector row, open-addressed (linear probing, at most half full, row + 1 as the
 * key so that 0 is empty): facets look up some 200 rows a facet, in half a Map's time. Sized by
 * the pool's own words, not the table's 50,000 rows, since many pools are cached at once.
 */
export interface RowTable {
  keys: Int32Array;
  lists: Int32Array[];
  /** 32 − log2(size): a row's first slot is the top bits of its Fibonacci hash. */
  shift: number;
}

function rowTable(byRow: Map<number, Int32Array>): RowTable {
  const bits = Math.max(1, Math.ceil(Math.log2(2 * byRow.size + 1)));
  const table: RowTable = { keys: new Int32Array(2 ** bits), lists: new Array(2 ** bits), shift: 32 - bits };
  for (const [row, at] of byRow) {
    let slot = firstSlot(table, row);
    while (table.keys[slot] !== 0) slot = (slot + 1) & (table.keys.length - 1);
    table.keys[slot] = row + 1;
    table.lists[slot] = at;
  }
  return table;
}

/** The pool's items of the word at this word-vector row, or undefined when the pool lacks it. */
export function itemsOfRow(table: RowTable, row: number): Int32Array | undefined {
  for (let slot = firstSlot(table, row); ; slot = (slot + 1) & (table.keys.length - 1)) {
    const key = table.keys[slot]!;
    if (key === row + 1) return table.lists[slot];
    if (key === 0) return undefined;
  }
}

function firstSlot(table: RowTable, row: number): number {
  return Math.imul(row, 0x9e3779b1) >>> table.shift;
}

/** Term frequencies per matcher and item, kept between searches (ranking is synchronous), zeroed after use. */
let tfScratch = new Float64Array(0);

/**
 * BM25 of every item for these terms, as rankCandidates (search-ranking.ts) scores the whole pool
 * given as candidates: document frequencies and mean length from the pool, `docCount` live
 * entries. 0 for an item that matches nothing.
 */
export function poolLexicalScores(index: PoolIndex, terms: string[], docCount: number): Float64Array {
  const n = index.items.length;
  const scores = new Float64Array(n);
  const matchers = termMatchers(terms);
  const m = matchers.length;
  if (n === 0 || m === 0) return scores;
  if (tfScratch.length < m * n) tfScratch = new Float64Array(m * n);
  const tf = tfScratch;
  const df = new Float64Array(m);
  // Items that match anything, in the order first met: only they are scored, and only their cells zeroed.
  const matched: number[] = [];
  const seen = new Uint8Array(n);
  for (let t = 0; t < m; t++) {
    const row = t * n;
    for (const word of matchedWords(index, matchers[t]!)) {
      const { at, weight } = index.postings.get(word)!;
      for (let k = 0; k < at.length; k++) {
        const i = at[k]!;
        if (tf[row + i] === 0) df[t]!++;
        tf[row + i] = tf[row + i]! + weight[k]!;
        if (seen[i] === 0) {
          seen[i] = 1;
          matched.push(i);
        }
      }
    }
  }
  const idf = bm25Idf(df, Math.max(docCount, n));
  for (const i of matched) {
    const norm = bm25Norm(index.lengths[i]!, index.avgLength);
    let score = 0;
    for (let t = 0; t < m; t++) {
      score += bm25Term(idf[t]!, tf[t * n + i]!, norm);
      tf[t * n + i] = 0;
    }
    scores[i] = score;
  }
  return scores;
}

/** Each item's cosine to the query vector (NaN for an item without a vector). */
export function poolCosines(index: PoolIndex, query: Float32Array): Float64Array {
  const n = index.items.length;
  const out = new Float64Array(n);
  const { vectors, scales } = index;
  int8Dots(query, vectors, n, VECTOR_DIMS, out);
  for (let i = 0; i < n; i++) out[i] = scales[i] === 0 ? Number.NaN : out[i]! * scales[i]!;
  return out;
}

/** The index's words a matcher accepts: those with its light stem, and those starting with its prefix. */
function matchedWords(index: PoolIndex, m: Matcher): Set<string> {
  const found = new Set<string>();
  if (m.prefix === undefined) {
    // Words whose light stem is `same` start with it: they sit in `same`'s prefix range.
    for (const w of prefixRange(index.vocabulary, m.same)) if (m.accepts(w)) found.add(w);
  } else {
    for (const w of prefixRange(index.vocabulary, m.prefix)) found.add(w);
    for (const w of prefixRange(index.vocabulary, m.same)) if (m.accepts(w)) found.add(w);
  }
  return found;
}

/** The words of a sorted list that start with `prefix`. */
function* prefixRange(sorted: string[], prefix: string): Generator<string> {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i++) yield sorted[i]!;
}

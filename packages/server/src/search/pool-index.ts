import { type SpeakerIndex, sessions, speakerIndex, type TurnPlace } from './hybrid-ranking.js';
import { int8Dots } from './int8-dots.js';
import { entryVector, type PoolItem, poolItem, type RankedItem } from './ranked-item.js';
import { bm25Idf1, bm25Norm, bm25Term, type Matcher, termMatchers, titleWeight, WEIGHTS } from './search-ranking.js';
import { VECTOR_DIMS, wordRow } from './word-vectors.js';

/**
 * A caller's pool of entries (all their live entries, when they have no more than the pool holds)
 * indexed in memory once per change of those datapacks: an inverted index of their words and one
 * matrix of their word vectors. A search then scores every entry with a few array passes instead
 * of a full-text query and thousands of small objects, and ranks the same way on both backends.
 */
export interface PoolIndex {
  items: PoolItem[];
  /** The items' positions by conversation session, each in the order said (see fuseRanking). */
  sessions: number[][];
  /** The items' speakers: a search asks about each distinct speaker, not each turn. */
  speakers: SpeakerIndex;
  /**
   * Item word vectors as 8-bit integers, row i at i × VECTOR_DIMS, times `scales[i]` (0 for an item
   * without a vector): a quarter of float32's bytes, so at the 50,000-entry cap the pools' matrices
   * hold 5 MB instead of 20. The cosines move by less than 0.01; recall on LoCoMo dev is unchanged.
   */
  vectors: Int8Array;
  scales: Float32Array;
  /** The index's words, sorted, for prefix look-ups. */
  vocabulary: string[];
  /**
   * The vocabulary's postings one word after another: word k's items are postingItems[postingStarts[k]]
   * up to postingStarts[k + 1], each with the word's field-weighted count in it (the BM25 term
   * frequency of that word alone). Three arrays for the whole pool, not two small ones per word.
   * Two bytes each: a pool holds at most MAX_POOL_ITEMS items, and the weights are whole numbers
   * (WEIGHTS) that an entry's 20,000 characters keep far below the cap (MAX_WEIGHT).
   */
  postingStarts: Int32Array;
  postingItems: Uint16Array;
  postingWeights: Uint16Array;
  /** The vocabulary place of each word that has a row in the word-vector table (stop words have none): facets look words up by row (placeOfRow). */
  wordsByRow: RowTable;
  /** Each vocabulary word's row in the word-vector table (-1: none), kept for refreshPoolIndex. */
  rows: Int32Array;
  /** Each item's words in title, tags and text (its BM25 length), kept for refreshPoolIndex. */
  lengths: Int32Array;
  /** Each item's place in a conversation, kept for refreshPoolIndex. */
  places: (TurnPlace | undefined)[];
  /** Each item's BM25 length normalization (bm25Norm of its words in title, tags and text against their mean). */
  norms: Float64Array;
}

/** A pool indexes at most this many items: its postings number them in 16 bits (SEMANTIC_POOL is 25,000). */
export const MAX_POOL_ITEMS = 2 ** 16;
/** A word's weighted count in one entry is kept up to this (16 bits); BM25 has long saturated there. */
const MAX_WEIGHT = 2 ** 16 - 1;

/** Throws when a pool would hold more items than its postings can number. */
export function checkPoolSize(n: number): void {
  if (n > MAX_POOL_ITEMS) throw new Error(`a search pool holds at most ${MAX_POOL_ITEMS} entries, not ${n}`);
}

/** Postings being gathered: each word's items and their field-weighted counts. */
export type Lists = Map<string, { at: number[]; weight: number[] }>;

/** Adds item i's words to the postings and returns how many words it has (its BM25 length). */
export function addItemWords(lists: Lists, item: RankedItem, i: number): number {
  const { title, tags, content } = item.words;
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
    list.weight.push(Math.min(weight, MAX_WEIGHT));
  }
  return title.length + tags.length + content.length;
}

/** Quantizes the item's word vector into row i of the matrix (a scale of 0: none). */
export function addItemVector(vectors: Int8Array, scales: Float32Array, item: RankedItem, i: number): void {
  const vector = entryVector(item);
  if (!vector) return;
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  if (max === 0) return;
  scales[i] = max / 127;
  for (let d = 0; d < VECTOR_DIMS; d++) vectors[i * VECTOR_DIMS + d] = Math.round(vector[d]! / scales[i]!);
}

export function buildPoolIndex(items: RankedItem[], places: (TurnPlace | undefined)[]): PoolIndex {
  const n = items.length;
  checkPoolSize(n);
  const vectors = new Int8Array(n * VECTOR_DIMS);
  const scales = new Float32Array(n);
  const lengths = new Int32Array(n);
  const lists: Lists = new Map();
  items.forEach((item, i) => {
    addItemVector(vectors, scales, item, i);
    lengths[i] = addItemWords(lists, item, i);
  });
  return finishIndex(items.map(poolItem), places, vectors, scales, lengths, lists);
}

function finishIndex(items: PoolItem[], places: (TurnPlace | undefined)[], vectors: Int8Array, scales: Float32Array, lengths: Int32Array, lists: Lists): PoolIndex {
  const vocabulary = [...lists.keys()].sort();
  const postingStarts = new Int32Array(vocabulary.length + 1);
  vocabulary.forEach((word, k) => {
    postingStarts[k + 1] = postingStarts[k]! + lists.get(word)!.at.length;
  });
  const postingItems = new Uint16Array(postingStarts[vocabulary.length]!);
  const postingWeights = new Uint16Array(postingItems.length);
  vocabulary.forEach((word, k) => {
    const list = lists.get(word)!;
    postingItems.set(list.at, postingStarts[k]);
    postingWeights.set(list.weight, postingStarts[k]);
  });
  const rows = Int32Array.from(vocabulary, wordRow);
  return assembleIndex({ items, places, vectors, scales, lengths, vocabulary, postingStarts, postingItems, postingWeights, rows });
}

/** What an index is made of before its derived parts (sessions, speakers, the row table, the norms) are computed. */
export type IndexParts = Pick<PoolIndex, 'items' | 'places' | 'vectors' | 'scales' | 'lengths' | 'vocabulary' | 'postingStarts' | 'postingItems' | 'postingWeights' | 'rows'>;

/** The index of these parts: its sessions, speakers, row table and BM25 norms computed from them. */
export function assembleIndex(parts: IndexParts): PoolIndex {
  const { items, places, lengths, rows } = parts;
  let sum = 0;
  for (let i = 0; i < lengths.length; i++) sum += lengths[i]!;
  const avgLength = sum / items.length || 1;
  // Loops, not Float64Array.from(lengths, map): that goes through the iterator protocol, a third of this function's time.
  const norms = new Float64Array(lengths.length);
  for (let i = 0; i < lengths.length; i++) norms[i] = bm25Norm(lengths[i]!, avgLength);
  return {
    ...parts,
    // Most pools hold no captured turn: no object per item to find that out.
    sessions: places.some((place) => place !== undefined) ? sessions(items.map((item, i) => ({ id: item.id, turn: places[i] }))) : [],
    speakers: speakerIndex(places),
    wordsByRow: rowTable(rows),
    norms,
  };
}

/**
 * About how many bytes an index holds, for the pool cache's bound: its arrays, its vocabulary (the
 * words' strings), and per item its object, id and time, its place in the sessions and, for a
 * captured turn, its place in a conversation (bench/pool-memory.ts compares this with the heap).
 */
export function poolIndexBytes(index: PoolIndex): number {
  const arrays =
    index.vectors.byteLength +
    index.scales.byteLength +
    index.postingStarts.byteLength +
    index.postingItems.byteLength +
    index.postingWeights.byteLength +
    index.lengths.byteLength +
    index.norms.byteLength;
  return arrays + index.wordsByRow.slots.byteLength + index.wordsByRow.filter.byteLength + index.vocabulary.length * 48 + index.items.length * 300;
}

/**
 * Vocabulary places by word-vector row, open-addressed (linear probing, at most half full, row + 1 as the
 * key so that 0 is empty): facets look up some 200 rows a facet, in half a Map's time. Sized by
 * the pool's own words, not the table's 50,000 rows, since many pools are cached at once.
 */
export interface RowTable {
  /**
   * A bit per row, at the row's low bits (8 bits per word of the pool, so it grows with the pool, not
   * the table): clear when the pool lacks the row's word, which half the rows facets ask for are,
   * so those need no probing; set, the table answers (another row may share the bit).
   */
  filter: Uint32Array;
  /** Key and vocabulary place side by side, so a hit reads one place in memory, not two. */
  slots: Int32Array;
  /** 32 − log2(size): a row's first slot is the top bits of its Fibonacci hash. */
  shift: number;
}

/** The table of these vocabulary rows (-1: none); of two words with one row, the later one's place is kept. */
function rowTable(rows: Int32Array): RowTable {
  let count = 0;
  for (let k = 0; k < rows.length; k++) if (rows[k]! >= 0) count++;
  const bits = Math.max(1, Math.ceil(Math.log2(2 * count + 1)));
  const table: RowTable = { filter: new Uint32Array(Math.max(1, 2 ** (bits + 2) / 32)), slots: new Int32Array(2 * 2 ** bits), shift: 32 - bits };
  const mask = 2 ** bits - 1;
  const filterMask = table.filter.length * 32 - 1;
  for (let word = 0; word < rows.length; word++) {
    const row = rows[word]!;
    if (row < 0) continue;
    table.filter[(row & filterMask) >>> 5]! |= 1 << (row & 31);
    let slot = firstSlot(table, row);
    while (table.slots[2 * slot] !== 0 && table.slots[2 * slot] !== row + 1) slot = (slot + 1) & mask;
    table.slots[2 * slot] = row + 1;
    table.slots[2 * slot + 1] = word;
  }
  return table;
}

/** The vocabulary place of the word at this word-vector row, or -1 when the pool lacks it. */
export function placeOfRow(table: RowTable, row: number): number {
  if ((table.filter[(row & (table.filter.length * 32 - 1)) >>> 5]! & (1 << (row & 31))) === 0) return -1;
  const mask = (table.slots.length >>> 1) - 1;
  for (let slot = firstSlot(table, row); ; slot = (slot + 1) & mask) {
    const key = table.slots[2 * slot]!;
    if (key === row + 1) return table.slots[2 * slot + 1]!;
    if (key === 0) return -1;
  }
}

function firstSlot(table: RowTable, row: number): number {
  return Math.imul(row, 0x9e3779b1) >>> table.shift;
}

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
export function poolLexicalScores(index: PoolIndex, terms: string[], docCount: number, scores: Float64Array = new Float64Array(index.items.length)): Float64Array {
  const n = index.items.length;
  scores.fill(0);
  const matchers = termMatchers(terms);
  if (n === 0 || matchers.length === 0) return scores;
  if (tfScratch.length < n) {
    tfScratch = new Float64Array(n);
    metScratch = new Int32Array(n);
  }
  const tf = tfScratch;
  const items = metScratch;
  const { postingStarts, postingItems, postingWeights, norms } = index;
  const documents = Math.max(docCount, n);
  for (const matcher of matchers) {
    let met = 0;
    for (const word of matchedWords(index, matcher)) {
      for (let k = postingStarts[word]!; k < postingStarts[word + 1]!; k++) {
        const i = postingItems[k]!;
        if (tf[i] === 0) items[met++] = i;
        tf[i] = tf[i]! + postingWeights[k]!;
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

/**
 * Which items hold one of the terms as a word (its light stem), not only a word its stem begins:
 * the lexical ranking's candidates, as the full-text index finds them without prefixes (1: held).
 */
export function poolWordMatches(index: PoolIndex, terms: string[]): Uint8Array {
  const held = new Uint8Array(index.items.length);
  for (const matcher of termMatchers(terms)) {
    if (matcher.prefix !== undefined) continue;
    for (const word of matchedWords(index, matcher)) for (let k = index.postingStarts[word]!; k < index.postingStarts[word + 1]!; k++) held[index.postingItems[k]!] = 1;
  }
  return held;
}

/** Each item's cosine to the query vector (NaN for an item without a vector). */
export function poolCosines(index: PoolIndex, query: Float32Array, out: Float64Array = new Float64Array(index.items.length)): Float64Array {
  const n = index.items.length;
  const { vectors, scales } = index;
  int8Dots(query, vectors, n, VECTOR_DIMS, out);
  for (let i = 0; i < n; i++) out[i] = scales[i] === 0 ? Number.NaN : out[i]! * scales[i]!;
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
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
  return [lo, end];
}

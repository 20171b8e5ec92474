import type { TurnPlace } from './hybrid-ranking.js';
import { entryVector, type PoolItem, poolItem, type RankedItem } from './ranked-item.js';
import { titleWeight, WEIGHTS } from './search-ranking.js';
import { VECTOR_DIMS, wordRow } from './word-vectors.js';

/**
 * A caller's pool of entries (all their live entries, when they have no more than the pool holds)
 * indexed in memory once per change of those datapacks: an inverted index of their words and one
 * matrix of their word vectors. A search then scores every entry with a few array passes instead
 * of a full-text query and thousands of small objects, and ranks the same way on both backends.
 */
export interface PoolIndex {
  items: PoolItem[];
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
  /** Each item's words in title, tags and text: its BM25 length. */
  lengths: Int32Array;
  /** Each item's place in a conversation, kept for refreshPoolIndex. */
  places: (TurnPlace | undefined)[];
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

function finishIndex(
  items: PoolItem[],
  places: (TurnPlace | undefined)[],
  vectors: Int8Array,
  scales: Float32Array,
  lengths: Int32Array,
  lists: Lists,
): PoolIndex {
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
  return assembleIndex({
    items,
    places,
    vectors,
    scales,
    lengths,
    vocabulary,
    postingStarts,
    postingItems,
    postingWeights,
    rows,
  });
}

/** What an index is made of before its row table is computed. */
export type IndexParts = Omit<PoolIndex, 'wordsByRow'>;

/** The index of these parts, with its row table. */
export function assembleIndex(parts: IndexParts): PoolIndex {
  return { ...parts, wordsByRow: rowTable(parts.rows) };
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
    index.lengths.byteLength;
  return (
    arrays +
    index.wordsByRow.slots.byteLength +
    index.wordsByRow.filter.byteLength +
    index.vocabulary.length * 48 +
    index.items.length * 300
  );
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
  const table: RowTable = {
    filter: new Uint32Array(Math.max(1, 2 ** (bits + 2) / 32)),
    slots: new Int32Array(2 * 2 ** bits),
    shift: 32 - bits,
  };
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

/** The first place in the sorted words whose word is not before `word` (the vocabulary's look-ups and merges). */
export function lowerBound(sorted: readonly string[], word: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < word) low = mid + 1;
    else high = mid;
  }
  return low;
}

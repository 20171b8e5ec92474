import type { TurnPlace } from './hybrid-ranking.js';
import {
  addItemVector,
  addItemWords,
  assembleIndex,
  checkPoolSize,
  type Lists,
  lowerBound,
  type PoolIndex,
} from './pool-index.js';
import { type PoolItem, poolItem, type RankedItem, withWords } from './ranked-item.js';
import { VECTOR_DIMS, wordRow } from './word-vectors.js';

/**
 * The pool after a change: `items` (newest first, as a build reads them) keeps the old index's
 * items that are still there in the same version, and their postings, vector rows, lengths and
 * word rows are copied from the old index in two passes over its arrays; only new or changed
 * items are split into words and looked up in the word-vector file. The result is the index
 * buildPoolIndex would make of the same items (pool-index.test.ts), at a fraction of its cost.
 */
export function refreshPoolIndex(
  old: PoolIndex,
  items: (PoolItem | RankedItem)[],
  places: (TurnPlace | undefined)[],
): PoolIndex {
  checkPoolSize(items.length);
  const added = items.length - old.items.length;
  if (added > 0 && endsWithAll(items, old.items)) return prependItems(old, items, places, added);
  const n = items.length;
  const oldPlace = new Map<PoolItem, number>();
  for (let j = 0; j < old.items.length; j++) oldPlace.set(old.items[j]!, j);
  const from = new Int32Array(old.items.length).fill(-1);
  const vectors = new Int8Array(n * VECTOR_DIMS);
  const scales = new Float32Array(n);
  const lengths = new Int32Array(n);
  const freshLists: Lists = new Map();
  for (let i = 0; i < n; i++) {
    const item = items[i]!;
    const j = oldPlace.get(item);
    if (j === undefined) {
      addItemVector(vectors, scales, withWords(item), i);
      lengths[i] = addItemWords(freshLists, withWords(item), i);
      continue;
    }
    from[j] = i;
    vectors.set(old.vectors.subarray(j * VECTOR_DIMS, (j + 1) * VECTOR_DIMS), i * VECTOR_DIMS);
    scales[i] = old.scales[j]!;
    lengths[i] = old.lengths[j]!;
  }
  // Pass one: how many of each old word's postings stay.
  const oldWords = old.vocabulary.length;
  const staying = new Int32Array(oldWords);
  for (let k = 0; k < oldWords; k++)
    for (let p = old.postingStarts[k]!; p < old.postingStarts[k + 1]!; p++)
      if (from[old.postingItems[p]!]! >= 0) staying[k]!++;
  const freshWords = [...freshLists.keys()].sort();
  // The new vocabulary: the old words still used and the fresh ones, merged in order.
  const vocabulary: string[] = [];
  const oldAt: number[] = [];
  const freshAt: number[] = [];
  for (let k = 0, f = 0; k < oldWords || f < freshWords.length; ) {
    if (k < oldWords && staying[k] === 0) {
      k++;
      continue;
    }
    const word =
      k < oldWords && (f >= freshWords.length || old.vocabulary[k]! <= freshWords[f]!)
        ? old.vocabulary[k]!
        : freshWords[f]!;
    vocabulary.push(word);
    oldAt.push(k < oldWords && old.vocabulary[k] === word ? k++ : -1);
    freshAt.push(f < freshWords.length && freshWords[f] === word ? f++ : -1);
  }
  const postingStarts = new Int32Array(vocabulary.length + 1);
  for (let v = 0; v < vocabulary.length; v++) {
    const fresh = freshAt[v]! >= 0 ? freshLists.get(freshWords[freshAt[v]!]!)!.at.length : 0;
    postingStarts[v + 1] = postingStarts[v]! + (oldAt[v]! >= 0 ? staying[oldAt[v]!]! : 0) + fresh;
  }
  // Pass two: the postings, kept ones renumbered, then the fresh ones, in item order as a build lays them out.
  const postingItems = new Uint16Array(postingStarts[vocabulary.length]!);
  const postingWeights = new Uint16Array(postingItems.length);
  const rows = new Int32Array(vocabulary.length);
  for (let v = 0; v < vocabulary.length; v++) {
    let at = postingStarts[v]!;
    const k = oldAt[v]!;
    const fresh = freshAt[v]! >= 0 ? freshLists.get(vocabulary[v]!)! : undefined;
    let f = 0;
    if (k >= 0)
      for (let p = old.postingStarts[k]!; p < old.postingStarts[k + 1]!; p++) {
        const i = from[old.postingItems[p]!]!;
        if (i < 0) continue;
        // Fresh items are merged in where they belong (both lists are in item order).
        for (; fresh && f < fresh.at.length && fresh.at[f]! < i; f++, at++) {
          postingItems[at] = fresh.at[f]!;
          postingWeights[at] = fresh.weight[f]!;
        }
        postingItems[at] = i;
        postingWeights[at++] = old.postingWeights[p]!;
      }
    for (; fresh && f < fresh.at.length; f++, at++) {
      postingItems[at] = fresh.at[f]!;
      postingWeights[at] = fresh.weight[f]!;
    }
    rows[v] = k >= 0 ? old.rows[k]! : wordRow(vocabulary[v]!);
    sortSegment(postingItems, postingWeights, postingStarts[v]!, postingStarts[v + 1]!);
  }
  return assembleIndex({
    items: items.map(poolItem),
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

/** Puts one word's postings in item order when they are not (kept items changed places: an entry's updated time went back). */
function sortSegment(items: Uint16Array, weights: Uint16Array, start: number, end: number): void {
  let sorted = true;
  for (let p = start + 1; p < end && sorted; p++) sorted = items[p - 1]! < items[p]!;
  if (sorted) return;
  const order = Array.from({ length: end - start }, (_, k) => start + k).sort((x, y) => items[x]! - items[y]!);
  const at = order.map((p) => items[p]!);
  const weight = order.map((p) => weights[p]!);
  items.set(at, start);
  weights.set(weight, start);
}

/** Whether `items` end with every one of `old`, in the same order (a pool after saves: only newer entries came in front). */
function endsWithAll(items: readonly PoolItem[], old: readonly PoolItem[]): boolean {
  const added = items.length - old.length;
  for (let j = 0; j < old.length; j++) if (items[added + j] !== old[j]) return false;
  return true;
}

/**
 * The index of `items`: `added` new ones followed by the old index's items, unchanged. The common
 * case after a save, in a few bulk copies: the old arrays move up by `added` rows, the old postings
 * keep their order with their item numbers raised by `added`, and only the new items' words are
 * merged in (looked up in the vocabulary by binary search), so it costs a copy of the arrays, not a
 * word-by-word rebuild of them.
 */
function prependItems(
  old: PoolIndex,
  items: (PoolItem | RankedItem)[],
  places: (TurnPlace | undefined)[],
  added: number,
): PoolIndex {
  const n = items.length;
  const vectors = new Int8Array(n * VECTOR_DIMS);
  const scales = new Float32Array(n);
  const lengths = new Int32Array(n);
  vectors.set(old.vectors, added * VECTOR_DIMS);
  scales.set(old.scales, added);
  lengths.set(old.lengths, added);
  const fresh: Lists = new Map();
  for (let i = 0; i < added; i++) {
    const item = withWords(items[i]!);
    addItemVector(vectors, scales, item, i);
    lengths[i] = addItemWords(fresh, item, i);
  }
  const freshWords = [...fresh.keys()].sort();
  const placeOf = freshWords.map((word) => lowerBound(old.vocabulary, word));
  const newWords = freshWords.filter((word, w) => old.vocabulary[placeOf[w]!] !== word).length;
  let freshPostings = 0;
  for (const list of fresh.values()) freshPostings += list.at.length;
  const words = old.vocabulary.length + newWords;
  const vocabulary = new Array<string>(words);
  const rows = new Int32Array(words);
  const postingStarts = new Int32Array(words + 1);
  const postingItems = new Uint16Array(old.postingItems.length + freshPostings);
  const postingWeights = new Uint16Array(postingItems.length);
  let k = 0; // the next old word
  let v = 0; // the next word of the new vocabulary
  let at = 0; // the next posting
  // Old words k up to `end`, which no new item has: their postings as they were, items moved up.
  const copyOld = (end: number) => {
    const from = old.postingStarts[k]!;
    const to = old.postingStarts[end]!;
    copyRaised(old.postingItems, from, to, postingItems, at, added);
    postingWeights.set(old.postingWeights.subarray(from, to), at);
    rows.set(old.rows.subarray(k, end), v);
    for (; k < end; k++, v++) {
      vocabulary[v] = old.vocabulary[k]!;
      postingStarts[v + 1] = old.postingStarts[k + 1]! - from + at;
    }
    at += to - from;
  };
  for (let w = 0; w < freshWords.length; w++) {
    const word = freshWords[w]!;
    copyOld(placeOf[w]!);
    // The new items come first in the word's postings: they are items 0 to added - 1.
    const list = fresh.get(word)!;
    for (let f = 0; f < list.at.length; f++, at++) {
      postingItems[at] = list.at[f]!;
      postingWeights[at] = list.weight[f]!;
    }
    vocabulary[v] = word;
    if (old.vocabulary[k] === word) {
      rows[v] = old.rows[k]!;
      const from = old.postingStarts[k]!;
      const to = old.postingStarts[k + 1]!;
      copyRaised(old.postingItems, from, to, postingItems, at, added);
      postingWeights.set(old.postingWeights.subarray(from, to), at);
      at += to - from;
      k++;
    } else rows[v] = wordRow(word);
    postingStarts[++v] = at;
  }
  copyOld(old.vocabulary.length);
  return assembleIndex({
    items: items.map(poolItem),
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

/** Copies source[from..to) to target from `at`, each raised by `by`: a loop in a function of its own, which V8 optimizes better than the same loop inside the closure (docs/benchmarks.md). */
function copyRaised(source: Uint16Array, from: number, to: number, target: Uint16Array, at: number, by: number): void {
  const shift = at - from;
  for (let p = from; p < to; p++) target[p + shift] = source[p]! + by;
}

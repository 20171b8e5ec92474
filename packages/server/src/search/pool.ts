import { type SpeakerIndex, sessions, speakerIndex, type TurnPlace } from './hybrid-ranking.js';
import { buildPoolIndex, type PoolIndex, poolIndexBytes } from './pool-index.js';
import { refreshPoolIndex } from './pool-refresh.js';
import type { PoolItem, RankedItem } from './ranked-item.js';

/** Entries saved into a pool are indexed apart from its main index until there are this many; then the two are merged. */
export const RECENT_LIMIT = 32;

/**
 * A caller's pool as search ranks it: the main index and, in front of it, the entries this instance
 * saved since that was built, indexed apart (`recent`, newest first). A save then indexes a few
 * entries instead of copying every array of the pool (its time and garbage a save are in
 * docs/benchmarks.md); the two are merged once RECENT_LIMIT saves are held. Search scores both segments
 * as one index (pool-scores.ts): a pool with recent entries ranks exactly as the merged index
 * would (pool.test.ts).
 */
export interface Pool {
  main: PoolIndex;
  recent?: PoolIndex;
  /** The recent entries with their words, for the merge. */
  recentItems: RankedItem[];
  /** How many items it holds. */
  size: number;
  // The lists below join both segments' and are made on first read, not by the save that makes
  // the pool: a writer's saves then cost what their own entries do, and its next search reads them once.
  /** Every item, the recent ones first. */
  readonly items: PoolItem[];
  /** Each item's place in a conversation, by position; empty when no item has one. */
  readonly places: (TurnPlace | undefined)[];
  /** The items' positions by conversation session, each in the order said (see fuseRanking). */
  readonly sessions: number[][];
  /** The items' speakers: a search asks about each distinct speaker, not each turn. */
  readonly speakers: SpeakerIndex;
  /** The mean BM25 length of the items (1 for an empty pool). */
  avgLength: number;
}

/** A pool of one index. */
export function wholePool(main: PoolIndex): Pool {
  return composed(main, undefined, []);
}

/** The pool with a new entry in front, newer than all of it; merged into one index when the recent ones reach RECENT_LIMIT. */
export function withNewest(pool: Pool, item: RankedItem, place: TurnPlace | undefined): Pool {
  const recentItems = [item, ...pool.recentItems];
  const recentPlaces = [place, ...(pool.recent?.places ?? [])];
  if (recentItems.length >= RECENT_LIMIT) return wholePool(merged(pool.main, recentItems, recentPlaces));
  // The new entry goes in front of the recent ones' index: only its words are indexed.
  const recent = pool.recent
    ? refreshPoolIndex(pool.recent, [item, ...pool.recent.items], recentPlaces)
    : buildPoolIndex([item], [place]);
  return composed(pool.main, recent, recentItems);
}

/** The pool as one index (what refreshPoolIndex brings up to date after a change it did not see). */
export function mergedIndex(pool: Pool): PoolIndex {
  return pool.recent ? merged(pool.main, pool.recentItems, pool.recent.places) : pool.main;
}

/** The main index with the recent entries put in front (refreshPoolIndex's bulk copy of a pool after saves). */
function merged(main: PoolIndex, recentItems: RankedItem[], recentPlaces: (TurnPlace | undefined)[]): PoolIndex {
  return refreshPoolIndex(main, [...recentItems, ...main.items], [...recentPlaces, ...main.places]);
}

/**
 * About how many bytes a pool holds, for the pool cache's bound: its indexes, the recent entries'
 * words (some 1 KB each), and per item its place in the lists of items and places.
 */
export function poolBytes(pool: Pool): number {
  return (
    poolIndexBytes(pool.main) +
    (pool.recent ? poolIndexBytes(pool.recent) + pool.recentItems.length * 1024 : 0) +
    pool.size * 16
  );
}

// Module-level on purpose: keyed weakly by the index itself, which one Cairn's SearchCache holds, so nothing is shared.
/** What composing a pool needs of an index, found once per index: the sum of its items' lengths, and whether any item has a place in a conversation. */
const indexFacts = new WeakMap<PoolIndex, { lengthSum: number; placed: boolean }>();

function factsOf(index: PoolIndex): { lengthSum: number; placed: boolean } {
  let facts = indexFacts.get(index);
  if (facts) return facts;
  let lengthSum = 0;
  for (let i = 0; i < index.lengths.length; i++) lengthSum += index.lengths[i]!;
  facts = { lengthSum, placed: index.places.some((place) => place !== undefined) };
  indexFacts.set(index, facts);
  return facts;
}

/** The places of a pool none of whose items has one: every look-up finds none. */
const NO_PLACES: (TurnPlace | undefined)[] = [];
const NO_SPEAKERS: SpeakerIndex = { of: new Int32Array(0), names: [] };

function composed(main: PoolIndex, recent: PoolIndex | undefined, recentItems: RankedItem[]): Pool {
  const facts = recent ? [factsOf(recent), factsOf(main)] : [factsOf(main)];
  // Most pools hold no captured turn: nothing per item to find that out on each save.
  const placed = facts.some((f) => f.placed);
  const size = main.items.length + (recent?.items.length ?? 0);
  let items: PoolItem[] | undefined;
  let places: (TurnPlace | undefined)[] | undefined;
  let sessionList: number[][] | undefined;
  let speakers: SpeakerIndex | undefined;
  return {
    main,
    ...(recent && { recent }),
    recentItems,
    size,
    get items() {
      items ??= recent ? [...recent.items, ...main.items] : main.items;
      return items;
    },
    get places() {
      places ??= !placed ? NO_PLACES : recent ? [...recent.places, ...main.places] : main.places;
      return places;
    },
    get sessions() {
      sessionList ??= placed ? sessions(this.items.map((item, i) => ({ id: item.id, turn: this.places[i] }))) : [];
      return sessionList;
    },
    get speakers() {
      speakers ??= placed ? speakerIndex(this.places) : NO_SPEAKERS;
      return speakers;
    },
    avgLength: facts.reduce((sum, f) => sum + f.lengthSum, 0) / size || 1,
  };
}

/** The pool's item at position i, without joining its segments' lists. */
export function itemAt(pool: Pool, i: number): PoolItem {
  const recent = pool.recent?.items.length ?? 0;
  return i < recent ? pool.recent!.items[i]! : pool.main.items[i - recent]!;
}

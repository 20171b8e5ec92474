import { BoundedCache } from '../cache/bounded-cache.js';
import type { Entry } from '../store/types.js';
import type { TurnPlace } from './hybrid-ranking.js';
import type { Pool } from './pool.js';
import { type EntryWords, words } from './search-ranking.js';

export { entryVector, type PoolItem, type RankedItem } from './ranked-item.js';

/**
 * What search derives from entries, kept between searches: a user's searches keep meeting the same
 * entries, so splitting them into words, fetching their text, computing their vectors and finding
 * their place in a conversation happen once per version, not per search. Bounded, least recently used out first.
 */

/**
 * Entries' words by id and version, for the entries a search ranks outside a pool (the full-text
 * index's matches for a caller beyond it) and for a pool built again soon after: pools keep no
 * words of their own (their index holds them), so this is the only copy, about 1 KB an entry.
 */
const wordCache = new BoundedCache<string, EntryWords>(5_000);

/** The cached words of this version of an entry, if any. */
export function cachedEntryWords(id: string, version: number): EntryWords | undefined {
  return wordCache.get(`${id}:${version}`);
}

/** Splits an entry into words and caches them under its id and version. */
export function entryWords(entry: Pick<Entry, 'id' | 'version' | 'title' | 'content' | 'tags'>): EntryWords {
  const key = `${entry.id}:${entry.version}`;
  const cached = wordCache.get(key);
  if (cached) return cached;
  const split = { title: words(entry.title), tags: words(entry.tags.join(' ')), content: words(entry.content) };
  wordCache.set(key, split);
  return split;
}

/** Captured turns' places by entry id; null for an entry that is not a turn of a known session. */
export const turnPlaceCache = new BoundedCache<string, TurnPlace | null>(50_000);

/** The megabytes of pools and hits together (the caches below) when CAIRN_SEARCH_CACHE_MB is not set. */
export const DEFAULT_SEARCH_CACHE_MB = 256;

/**
 * The share of CAIRN_SEARCH_CACHE_MB that holds entries searches returned (the hit cache below),
 * counted at two bytes a character; the pools take the rest. 8 MB of the default 256 hold some
 * 9,000 entries of a sentence or two: fetching a search's hits from the database was a fifth of a
 * heavy user's search when the cache held a thousand.
 */
const HIT_SHARE = 1 / 32;

function newPoolCache(megabytes: number) {
  return new BoundedCache<string, { signature: string; pool: Pool; bytes: number }>(
    Math.floor(megabytes * (1 - HIT_SHARE) * 2 ** 20),
    (pool) => pool.bytes,
  );
}

/**
 * The caller's newest entries, indexed, by datapacks and kinds, with the signature they were read
 * at: bounded by their bytes (poolBytes, about 0.75 KB an entry), the least recently used out first.
 */
export let poolCache = newPoolCache(DEFAULT_SEARCH_CACHE_MB);

/** Bounds the pool and hit caches at this many megabytes together (CAIRN_SEARCH_CACHE_MB), emptying them. */
export function configureSearchCache(megabytes: number): void {
  poolCache = newPoolCache(megabytes);
  hitCache = newHitCache(megabytes);
}

/**
 * How pools came to be, since the process started: read and indexed whole (`built`), brought up
 * to date from the previous index after a write (`refreshed`, only the changed entries read), or
 * given a new entry by the instance that saved it (`taken`, nothing read: saved-into-pools.ts).
 * Tests read it to prove a save refreshes instead of rebuilding.
 */
export const poolStats = { built: 0, refreshed: 0, refreshedEntries: 0, taken: 0 };

/**
 * Entries that searches returned, each with the pool it was read for: while a pool is current
 * (its datapacks' entry revision unchanged), every change search could show, an edit, a move, a
 * trash, bumps that revision and the next search replaces the pool, so a hit found again in the
 * same pool is the row as it stands (or newer, for a search that raced the write), and search
 * skips fetching it. Bounded by the text held. The pool is held weakly: every write replaces a
 * pool, and a hit left behind must not keep the old one (up to SEMANTIC_POOL entries indexed) alive.
 */
function newHitCache(megabytes: number) {
  const chars = Math.floor((megabytes * HIT_SHARE * 2 ** 20) / 2);
  // An entry over a hundredth of the bound is not kept: one long entry must not push out a hundred short ones.
  return new BoundedCache<string, { pool: WeakRef<Pool>; entry: Entry }>(
    chars,
    ({ entry }) => hitChars(entry),
    Math.floor(chars / 100),
  );
}

let hitCache = newHitCache(DEFAULT_SEARCH_CACHE_MB);

/** At most this many characters of entries' text are held now (about 2 bytes each). */
export function hitCacheChars(): number {
  return hitCache.maxSize;
}

/** An entry's size in the hit cache: its text, and 200 for the rest of its fields. */
function hitChars(entry: Entry): number {
  return entry.title.length + entry.content.length + entry.tags.reduce((n, t) => n + t.length, 0) + 200;
}

/** The entry a search of this pool returned before, if any. */
export function cachedHit(pool: Pool, id: string): Entry | undefined {
  const held = hitCache.get(id);
  return held?.pool.deref() === pool ? held.entry : undefined;
}

/** Keeps an entry a search of this pool returned (frozen: every later search hands out the same object). */
export function rememberHit(pool: Pool, entry: Entry): void {
  Object.freeze(entry.tags);
  hitCache.set(entry.id, { pool: new WeakRef(pool), entry: Object.freeze(entry) });
}

/** How many characters the hit cache holds (for tests). */
export function heldHitChars(): number {
  return hitCache.heldSize;
}

/** The words of a speaker's name that can identify them in a query. */
export function speakerWords(name: string): string[] {
  return words(name).filter((w) => w.length > 1);
}

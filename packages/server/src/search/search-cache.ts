import { BoundedCache } from '../cache/bounded-cache.js';
import type { Entry } from '../store/types.js';
import type { TurnPlace } from './hybrid-ranking.js';
import type { Pool } from './pool.js';
import { type EntryWords, words } from './search-ranking.js';

export { entryVector, type PoolItem, type RankedItem } from './ranked-item.js';

/** The semantic signal and conversation context cover this many of the caller's newest entries. */
export const SEMANTIC_POOL = 25_000;

/** The megabytes of pools and hits together (SearchCache's) when CAIRN_SEARCH_CACHE_MB is not set. */
export const DEFAULT_SEARCH_CACHE_MB = 256;

/**
 * The share of CAIRN_SEARCH_CACHE_MB that holds entries searches returned (the hit cache below),
 * counted at two bytes a character; the pools take the rest: fetching a search's hits from the
 * database was a large share of a heavy user's search when the cache held few (docs/benchmarks.md).
 */
const HIT_SHARE = 1 / 32;

/** A pool as the cache holds it: the signature its datapacks had when it was read, and its size. */
export type HeldPool = { signature: string; pool: Pool; bytes: number };

/** How pools came to be (SearchCache.stats). */
export interface PoolStats {
  built: number;
  refreshed: number;
  refreshedEntries: number;
  taken: number;
}

/**
 * What search derives from one store's entries, kept between searches: a user's searches keep
 * meeting the same entries, so splitting them into words, fetching their text, computing their
 * vectors and finding their place in a conversation happen once per version, not per search.
 * One per store (KyselyStore.searchCache, made by openStore): two Cairns in one process, or an
 * export's database and its import's, share nothing, though they may share ids. Every part is
 * bounded, least recently used out first.
 */
export class SearchCache {
  /**
   * Entries' words by id and version, for the entries a search ranks outside a pool (the full-text
   * index's matches for a caller beyond it) and for a pool built again soon after: pools keep no
   * words of their own (their index holds them), so this is the only copy, about 1 KB an entry.
   */
  readonly words = new BoundedCache<string, EntryWords>(5_000);
  /** Captured turns' places by entry id; null for an entry that is not a turn of a known session. */
  readonly turnPlaces = new BoundedCache<string, TurnPlace | null>(50_000);
  /** Entries' vectors by id and version (about 0.5 KB each): for entries ranked outside a pool, whose index holds its own. */
  readonly vectors = new BoundedCache<string, Float32Array | null>(5_000);
  /** Provider vectors of entries by model, id and version (a 768-d vector is 3 KB). */
  readonly providerVectors = new BoundedCache<string, Float32Array>(5_000);
  /**
   * The caller's newest entries, indexed, by datapacks and kinds, with the signature they were read
   * at: bounded by their bytes (poolBytes, about 0.75 KB an entry), the least recently used out first.
   */
  readonly pools: BoundedCache<string, HeldPool>;
  /**
   * Entries that searches returned, each with the pool it was read for: while a pool is current
   * (its datapacks' entry revision unchanged), every change search could show, an edit, a move, a
   * trash, bumps that revision and the next search replaces the pool, so a hit found again in the
   * same pool is the row as it stands (or newer, for a search that raced the write), and search
   * skips fetching it. Bounded by the text held. The pool is held weakly: every write replaces a
   * pool, and a hit left behind must not keep the old one (up to SEMANTIC_POOL entries indexed) alive.
   */
  private readonly hits: BoundedCache<string, { pool: WeakRef<Pool>; entry: Entry }>;
  /**
   * How pools came to be: read and indexed whole (`built`), brought up to date from the previous
   * index after a write (`refreshed`, only the changed entries read), or given a new entry by the
   * instance that saved it (`taken`, nothing read: saved-into-pools.ts). Tests read it to prove a
   * save refreshes instead of rebuilding.
   */
  readonly stats: PoolStats = { built: 0, refreshed: 0, refreshedEntries: 0, taken: 0 };
  /** The pools' limit: SEMANTIC_POOL, lowered by a test to reach a caller with more entries than a pool holds with a handful. */
  semanticPool = SEMANTIC_POOL;

  /** `megabytes`: the pool and hit caches together (CAIRN_SEARCH_CACHE_MB). */
  constructor(megabytes = DEFAULT_SEARCH_CACHE_MB) {
    this.pools = new BoundedCache(Math.floor(megabytes * (1 - HIT_SHARE) * 2 ** 20), (held) => held.bytes);
    const chars = Math.floor((megabytes * HIT_SHARE * 2 ** 20) / 2);
    // An entry over a hundredth of the bound is not kept: one long entry must not push out a hundred short ones.
    this.hits = new BoundedCache(chars, ({ entry }) => hitChars(entry), Math.floor(chars / 100));
  }

  /** The cached words of this version of an entry, if any. */
  cachedEntryWords(id: string, version: number): EntryWords | undefined {
    return this.words.get(`${id}:${version}`);
  }

  /** Splits an entry into words and caches them under its id and version. */
  entryWords(entry: Pick<Entry, 'id' | 'version' | 'title' | 'content' | 'tags'>): EntryWords {
    const key = `${entry.id}:${entry.version}`;
    const cached = this.words.get(key);
    if (cached) return cached;
    const split = entryWords(entry);
    this.words.set(key, split);
    return split;
  }

  /** The entry a search of this pool returned before, if any. */
  cachedHit(pool: Pool, id: string): Entry | undefined {
    const held = this.hits.get(id);
    return held?.pool.deref() === pool ? held.entry : undefined;
  }

  /** Keeps an entry a search of this pool returned (frozen: every later search hands out the same object). */
  rememberHit(pool: Pool, entry: Entry): void {
    Object.freeze(entry.tags);
    this.hits.set(entry.id, { pool: new WeakRef(pool), entry: Object.freeze(entry) });
  }

  /** At most this many characters of entries' text are held (about 2 bytes each). */
  get hitCharsBound(): number {
    return this.hits.maxSize;
  }

  /** How many characters the hit cache holds now. */
  get heldHitChars(): number {
    return this.hits.heldSize;
  }

  /** How many things each part holds now (for tests: what a search filled, and in which Cairn). */
  held(): { pools: number; hits: number; words: number; turnPlaces: number; vectors: number; providerVectors: number } {
    return {
      pools: this.pools.size,
      hits: this.hits.size,
      words: this.words.size,
      turnPlaces: this.turnPlaces.size,
      vectors: this.vectors.size,
      providerVectors: this.providerVectors.size,
    };
  }
}

/** An entry split into words (not cached: SearchCache.entryWords is). */
export function entryWords(entry: Pick<Entry, 'title' | 'content' | 'tags'>): EntryWords {
  return { title: words(entry.title), tags: words(entry.tags.join(' ')), content: words(entry.content) };
}

/** An entry's size in the hit cache: its text, and 200 for the rest of its fields. */
function hitChars(entry: Entry): number {
  return entry.title.length + entry.content.length + entry.tags.reduce((n, t) => n + t.length, 0) + 200;
}

/** The words of a speaker's name that can identify them in a query. */
export function speakerWords(name: string): string[] {
  return words(name).filter((w) => w.length > 1);
}

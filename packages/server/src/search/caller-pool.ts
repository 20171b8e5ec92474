import type { SearchQuery } from '../store/types.js';
import type { TurnPlace } from './hybrid-ranking.js';
import { mergedIndex, type Pool, poolBytes, wholePool } from './pool.js';
import { buildPoolIndex, MAX_POOL_ITEMS } from './pool-index.js';
import { refreshPoolIndex } from './pool-refresh.js';
import { withWords } from './ranked-item.js';
import { type PoolItem, type RankedItem, speakerWords } from './search-cache.js';
import { CAPTURED_KIND, type EntryWords } from './search-ranking.js';
import { type CandidateRow, isoText, type SearchSource } from './search-source.js';

/**
 * A lexical ranking alone (the near-duplicate check) indexes up to this many of a datapack's
 * entries, what its postings can number: above SEMANTIC_POOL it would otherwise leave the pool
 * for a full-text query of every word of the text, ten times the CPU of a save (capacity.md).
 * Such a pool has a key of its own (poolOf), since a search's pool of the same datapacks holds
 * only their newest SEMANTIC_POOL entries.
 */
export const LEXICAL_POOL = MAX_POOL_ITEMS;

/**
 * The caller's newest entries with their words, indexed, for the semantic signal and conversation
 * context (and, when it holds them all, for the whole ranking): kept between searches while the
 * datapacks' entries stay unchanged (entriesState's signature), so a search does not fetch
 * thousands of rows each time.
 */
export async function poolOf(
  source: SearchSource,
  query: Pick<SearchQuery, 'datapackIds' | 'kinds'>,
  signature: string,
  max = source.cache.semanticPool,
): Promise<Pool> {
  const { cache } = source;
  // A limit other than the cache's semanticPool last (takeIntoPools reads it).
  const key = `${[...query.datapackIds].sort().join(',')}|${query.kinds?.join(',') ?? ''}${max === cache.semanticPool ? '' : `|${max}`}`;
  const cached = cache.pools.get(key);
  if (cached?.signature === signature) return cached.pool;
  const rows = await source.newestEntries(query.datapackIds, query.kinds, max);
  // After a write only what changed is read and split: the rest of the pool is still current.
  // Recent saves are merged in first: the refresh copies what stays from one index.
  const previous = cached && mergedIndex(cached.pool);
  const kept = new Map(previous ? previous.items.map((item, i) => [item.id, { item, place: previous.places[i] }]) : []);
  const same = (r: CandidateRow) => {
    const item = kept.get(r.id)?.item;
    return item?.version === Number(r.version) && item.datapackId === r.datapack_id;
  };
  const freshItems = await candidateItems(
    source,
    rows.filter((r) => !same(r)),
  );
  const fresh = new Map(freshItems.map((item) => [item.id, item]));
  const freshPlaces = await turnPlaces(
    source,
    freshItems.filter((i) => i.kind === CAPTURED_KIND).map((i) => i.id),
  );
  const items: (PoolItem | RankedItem)[] = [];
  const places: (TurnPlace | undefined)[] = [];
  for (const r of rows) {
    const old = same(r) ? kept.get(r.id) : undefined;
    const item = old?.item ?? fresh.get(r.id);
    if (!item) continue;
    items.push(item);
    places.push(old ? old.place : freshPlaces.get(r.id));
  }
  const pool = wholePool(
    previous ? refreshPoolIndex(previous, items, places) : buildPoolIndex(items.map(withWords), places),
  );
  if (previous) {
    cache.stats.refreshed++;
    cache.stats.refreshedEntries += freshItems.length;
  } else cache.stats.built++;
  cache.pools.set(key, { signature, pool, bytes: poolBytes(pool) });
  return pool;
}

/** The datapacks of a pool this store's cache holds (of every kind) that includes this datapack, if any. */
export function heldPoolCovering(source: SearchSource, datapackId: string): string[] | undefined {
  for (const key of source.cache.pools.keys()) {
    const [ids, kinds] = key.split('|');
    if (kinds !== '') continue;
    const datapackIds = ids!.split(',');
    if (datapackIds.length > 1 && datapackIds.includes(datapackId)) return datapackIds;
  }
  return undefined;
}

/** Candidates with their words (those whose text is gone by now are left out). */
export async function candidateItems(source: SearchSource, rows: CandidateRow[]): Promise<RankedItem[]> {
  const known = await wordsOf(source, rows);
  return rows.flatMap((c) => {
    const words = known.get(c.id);
    return words
      ? [
          {
            id: c.id,
            kind: c.kind,
            version: Number(c.version),
            updatedAt: isoText(c.updated_at),
            words,
            ...(c.datapack_id && { datapackId: c.datapack_id }),
          },
        ]
      : [];
  });
}

/** The words of these entries' current versions: from the cache, the rest fetched 500 at a time. */
async function wordsOf(source: SearchSource, rows: CandidateRow[]): Promise<Map<string, EntryWords>> {
  const known = new Map<string, EntryWords>();
  const missing: string[] = [];
  for (const r of rows) {
    const cached = source.cache.cachedEntryWords(r.id, Number(r.version));
    if (cached) known.set(r.id, cached);
    else missing.push(r.id);
  }
  for (let i = 0; i < missing.length; i += 500) {
    for (const r of await source.entryTexts(missing.slice(i, i + 500)))
      known.set(r.id, source.cache.entryWords({ ...r, version: Number(r.version) }));
  }
  return known;
}

/** Session, time and speaker of these captured turns (cached: they never change). */
export async function turnPlaces(source: SearchSource, entryIds: string[]): Promise<Map<string, TurnPlace>> {
  const turnPlaceCache = source.cache.turnPlaces;
  const missing = entryIds.filter((id) => !turnPlaceCache.has(id));
  for (let i = 0; i < missing.length; i += 500) {
    const rows = await source.turnRows(missing.slice(i, i + 500));
    const found = new Map(rows.map((r) => [r.entry_id, r]));
    for (const id of missing.slice(i, i + 500)) {
      const r = found.get(id);
      turnPlaceCache.set(
        id,
        r?.session_id
          ? {
              session: r.session_id,
              at: isoText(r.created_at),
              speaker: r.speaker ? speakerWords(r.speaker) : undefined,
            }
          : null,
      );
    }
  }
  const places = new Map<string, TurnPlace>();
  for (const id of entryIds) {
    const place = turnPlaceCache.get(id);
    if (place) places.set(id, place);
  }
  return places;
}

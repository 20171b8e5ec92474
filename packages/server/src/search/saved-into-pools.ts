import type { Entry } from '../store/types.js';
import type { TurnPlace } from './hybrid-ranking.js';
import { itemAt, poolBytes, withNewest } from './pool.js';
import type { RankedItem, SearchCache } from './search-cache.js';

/** A pool's signature (entriesState's): its datapacks' live entries and their revision, summed. */
function parseSignature(signature: string): { count: number; revision: number } | undefined {
  const m = /^(\d+)\|r(\d+)$/.exec(signature);
  return m ? { count: Number(m[1]), revision: Number(m[2]) } : undefined;
}

/**
 * After this instance stored a new live entry, each pool it holds over the entry's datapack takes
 * the entry in at once (it is their newest) when the pool was current just before the save, so the
 * writer's next search or duplicate check finds its pool current instead of reading the datapacks'
 * list of entries and comparing it with the pool's. "Current just before" is proven by the
 * datapacks' state read after the save: exactly one live entry and one revision more than the pool
 * was read at, so nothing else changed in between, on this instance or another. Otherwise the pool
 * is left as it was and its next search brings it up to date as before.
 *
 * `cache`: the store's (its pools' limit is the cache's, but for a pool whose key names its own,
 * poolOf). `place`: for a captured turn, its place in a conversation (null: none known).
 */
export async function takeIntoPools(
  cache: SearchCache,
  entry: Entry,
  stateOf: (datapackIds: string[]) => Promise<{ signature: string }>,
  place?: TurnPlace | null,
): Promise<void> {
  if (place !== undefined) cache.turnPlaces.set(entry.id, place);
  if (entry.deletedAt) return;
  const keys = [...cache.pools.keys()].filter((key) => key.split('|')[0]!.split(',').includes(entry.datapackId));
  for (const key of keys) {
    const held = cache.pools.get(key);
    const before = held && parseSignature(held.signature);
    if (!before) continue;
    const [ids, kinds, limit] = key.split('|');
    const { signature } = await stateOf(ids!.split(','));
    const after = parseSignature(signature);
    if (after?.count !== before.count + 1 || after.revision !== before.revision + 1) continue;
    // A search may have replaced the pool meanwhile: it is then as current as this would make it.
    if (cache.pools.get(key) !== held) continue;
    const { pool } = held;
    if (kinds && !kinds.split(',').includes(entry.kind)) {
      cache.pools.set(key, { ...held, signature });
      continue;
    }
    // The pool is its datapacks' newest entries, newest first: the entry must be newer than all of
    // them (so it is not among them), and a full pool is left to drop its oldest on its next search.
    const newest = pool.size > 0 ? itemAt(pool, 0) : undefined;
    if (pool.size >= (limit ? Number(limit) : cache.semanticPool) || (newest && !(entry.updatedAt > newest.updatedAt)))
      continue;
    const item: RankedItem = {
      id: entry.id,
      kind: entry.kind,
      version: entry.version,
      updatedAt: entry.updatedAt,
      words: cache.entryWords(entry),
      datapackId: entry.datapackId,
    };
    const taken = withNewest(pool, item, place ?? undefined);
    cache.stats.taken++;
    cache.pools.set(key, { signature, pool: taken, bytes: poolBytes(taken) });
  }
}

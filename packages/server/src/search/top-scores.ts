import type { PoolItem } from './search-cache.js';

/** The `limit` best-scoring items (score above 0), ties to the most recently updated, then by id, as rankCandidates orders them. */
export function topScores(
  items: readonly PoolItem[],
  scores: Float64Array,
  limit: number,
): { id: string; score: number }[] {
  const before = (a: number, b: number) => {
    if (scores[a] !== scores[b]) return scores[a]! > scores[b]!;
    const x = items[a]!;
    const y = items[b]!;
    return x.updatedAt !== y.updatedAt ? x.updatedAt > y.updatedAt : x.id < y.id;
  };
  if (limit > 64) {
    const hits: number[] = [];
    for (let i = 0; i < items.length; i++) if (scores[i]! > 0) hits.push(i);
    return hits
      .sort((a, b) => (before(a, b) ? -1 : 1))
      .slice(0, limit)
      .map((i) => ({ id: items[i]!.id, score: scores[i]! }));
  }
  // The best `limit` kept in order as the scores go by: a long text's words reach most of a pool, and sorting them all cost more than the rest of the check.
  const best: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (!(scores[i]! > 0) || (best.length === limit && !before(i, best[limit - 1]!))) continue;
    let at = best.length === limit ? limit - 1 : best.length;
    for (; at > 0 && before(i, best[at - 1]!); at--) best[at] = best[at - 1]!;
    best[at] = i;
  }
  return best.map((i) => ({ id: items[i]!.id, score: scores[i]! }));
}

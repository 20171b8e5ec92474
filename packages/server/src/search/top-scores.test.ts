import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RankedItem } from './search-cache.js';
import { topScores } from './top-scores.js';

test('topScores keeps the best few in the order a full sort gives: score, then the most recently updated, then id; nothing scored 0', () => {
  let seed = 11;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let round = 0; round < 50; round++) {
    const n = 1 + Math.floor(next() * 300);
    // Few distinct scores and times, so ties on both are common.
    const items = Array.from(
      { length: n },
      (_, i) =>
        ({
          id: `e${Math.floor(next() * 1e6)}-${i}`,
          updatedAt: `2026-01-0${1 + Math.floor(next() * 3)}T00:00:00.000Z`,
        }) as RankedItem,
    );
    const scores = Float64Array.from(items, () => Math.floor(next() * 4) / 2);
    const sorted = items
      .map((item, i) => ({ item, score: scores[i]! }))
      .filter((h) => h.score > 0)
      .sort(
        (a, b) =>
          b.score - a.score ||
          (a.item.updatedAt < b.item.updatedAt
            ? 1
            : a.item.updatedAt > b.item.updatedAt
              ? -1
              : a.item.id < b.item.id
                ? -1
                : 1),
      )
      .map((h) => ({ id: h.item.id, score: h.score }));
    for (const limit of [1, 5, 10, 100, Number.MAX_SAFE_INTEGER])
      assert.deepEqual(topScores(items, scores, limit), sorted.slice(0, limit), `round ${round}, limit ${limit}`);
  }
});

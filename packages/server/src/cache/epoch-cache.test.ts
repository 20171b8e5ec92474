import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EpochCache } from './epoch-cache.js';

test('a value is served only under the epoch it was stored at; any other epoch, older too, empties the cache', () => {
  const cache = new EpochCache<string>();
  cache.set('u1', 5, 'five');
  assert.equal(cache.get('u1', 5), 'five');
  assert.equal(cache.get('u1', 6), undefined);
  cache.set('u1', 6, 'six');
  assert.equal(cache.get('u1', 4), undefined, 'a restored database counts from an older number');
  assert.equal(cache.get('u1', 6), undefined, 'and what was kept before it is gone');
});

test('at most max callers are kept, the oldest stored going first', () => {
  const cache = new EpochCache<number>(3);
  for (let i = 0; i < 5; i++) cache.set(`u${i}`, 1, i);
  assert.deepEqual(
    ['u0', 'u1', 'u2', 'u3', 'u4'].map((k) => cache.get(k, 1)),
    [undefined, undefined, 2, 3, 4],
  );
  cache.set('u2', 1, 22);
  cache.set('u5', 1, 5);
  assert.equal(cache.get('u2', 1), 22, 'storing again makes a caller the newest');
  assert.equal(cache.get('u3', 1), undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedCache } from './bounded-cache.js';

test('bounded cache: by count, the oldest stored goes first, and storing a key again makes it the newest', () => {
  const cache = new BoundedCache<string, number>(3);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  cache.set('a', 10);
  cache.set('d', 4);
  assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c'), cache.get('d')], [10, undefined, 3, 4]);
  assert.equal(cache.size, 3);
  assert.equal(cache.has('b'), false);
});

test('bounded cache: by size, as many of the oldest go as the new value needs; a value larger than the bound is not kept', () => {
  const cache = new BoundedCache<string, string>(10, (s) => s.length);
  cache.set('a', 'xxxx');
  cache.set('b', 'xxx');
  cache.set('c', 'xx');
  assert.equal(cache.heldSize, 9);
  cache.set('d', 'xxxxxx');
  assert.deepEqual([...cache.values()], ['xx', 'xxxxxx']);
  assert.equal(cache.heldSize, 8);
  cache.set('c', 'x');
  assert.equal(cache.heldSize, 7, 'a replaced value counts its own size');
  cache.set('e', 'x'.repeat(11));
  assert.equal(cache.get('e'), undefined);
  assert.equal(cache.heldSize, 7);
  cache.delete('d');
  assert.equal(cache.heldSize, 1);
  cache.clear();
  assert.deepEqual([cache.size, cache.heldSize], [0, 0]);
});

test('bounded cache: a value over the largest entry size is not kept, and the key it was stored under holds nothing', () => {
  const cache = new BoundedCache<string, string>(10, (s) => s.length, 3);
  cache.set('a', 'xxx');
  cache.set('b', 'xx');
  cache.set('a', 'xxxx');
  assert.deepEqual([cache.get('a'), cache.get('b'), cache.heldSize], [undefined, 'xx', 2]);
});

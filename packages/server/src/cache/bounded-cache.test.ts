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

test('bounded cache: the least recently used goes first: a hit keeps a value, however early it was stored; has() is not a use', () => {
  const cache = new BoundedCache<string, number>(3);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  assert.equal(cache.get('a'), 1);
  cache.set('d', 4);
  assert.deepEqual(
    [...cache.keys()],
    ['c', 'a', 'd'],
    'b, unused since it was stored, went; a, stored first but read since, stays',
  );
  assert.equal(cache.has('c'), true);
  assert.equal(cache.get('d'), 4, 'reading the newest again keeps the order');
  cache.set('e', 5);
  assert.deepEqual([...cache.keys()], ['a', 'd', 'e'], 'has() did not keep c');

  // By size: the pools of users who keep searching stay while those of users who stopped go.
  const pools = new BoundedCache<string, string>(10, (s) => s.length);
  pools.set('busy', 'xxxx');
  pools.set('idle', 'xxxx');
  for (let i = 0; i < 3; i++) pools.get('busy');
  pools.set('new', 'xxxx');
  assert.deepEqual([...pools.keys()], ['busy', 'new']);
  pools.delete('new');
  pools.set('other', 'xxxxxx');
  assert.deepEqual([...pools.keys()], ['busy', 'other'], 'a deleted newest key leaves the order intact');
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

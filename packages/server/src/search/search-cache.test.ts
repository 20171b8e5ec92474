import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/load-config.js';
import { DEFAULT_SEARCH_CACHE_MB, SearchCache } from './search-cache.js';

test('CAIRN_SEARCH_CACHE_MB bounds the pool and hit caches together in megabytes, a 32nd for hits, and a bad value says what it takes', () => {
  assert.equal(loadConfig({}).searchCacheMb, DEFAULT_SEARCH_CACHE_MB);
  assert.equal(loadConfig({ CAIRN_SEARCH_CACHE_MB: '1024' }).searchCacheMb, 1024);
  assert.throws(() => loadConfig({ CAIRN_SEARCH_CACHE_MB: 'lots' }), /CAIRN_SEARCH_CACHE_MB/);
  assert.throws(() => loadConfig({ CAIRN_SEARCH_CACHE_MB: '2' }), /at least 8/);
  const small = new SearchCache(8);
  // 256 KB of hits at two bytes a character; the pools have the other 7.75 MB.
  assert.equal(small.hitCharsBound, 131_072);
  assert.equal(small.pools.maxSize, 8_126_464);
  const standard = new SearchCache();
  assert.equal(standard.hitCharsBound, 4_194_304);
  assert.equal(standard.pools.maxSize, 248 * 1024 * 1024);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/load-config.js';
import { configureSearchCache, DEFAULT_SEARCH_CACHE_MB, poolCache } from './search-cache.js';

test('CAIRN_SEARCH_CACHE_MB bounds the pool cache in megabytes, and a bad value says what it takes', () => {
  assert.equal(loadConfig({}).searchCacheMb, DEFAULT_SEARCH_CACHE_MB);
  assert.equal(loadConfig({ CAIRN_SEARCH_CACHE_MB: '1024' }).searchCacheMb, 1024);
  assert.throws(() => loadConfig({ CAIRN_SEARCH_CACHE_MB: 'lots' }), /CAIRN_SEARCH_CACHE_MB/);
  assert.throws(() => loadConfig({ CAIRN_SEARCH_CACHE_MB: '2' }), /at least 8/);
  try {
    configureSearchCache(8);
    assert.equal(poolCache.maxSize, 8 * 1024 * 1024);
  } finally {
    configureSearchCache(DEFAULT_SEARCH_CACHE_MB);
  }
  assert.equal(poolCache.maxSize, 256 * 1024 * 1024);
});

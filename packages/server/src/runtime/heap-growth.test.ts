import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapGrowthFlag } from './heap-growth.js';

test('heap growth: set by default, left alone when the operator gave node a value', () => {
  assert.equal(heapGrowthFlag([]), '--heap-growing-percent=30');
  assert.equal(heapGrowthFlag(['--max-old-space-size=512', '--enable-source-maps']), '--heap-growing-percent=30');
  assert.equal(heapGrowthFlag(['--heap-growing-percent=50']), undefined);
  assert.equal(heapGrowthFlag(['--heap_growing_percent=0']), undefined);
});

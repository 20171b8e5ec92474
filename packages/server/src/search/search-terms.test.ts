import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchTerms } from './search-terms.js';

test('numbers and single letters are terms; stop words and the tails of contractions are not', () => {
  assert.deepEqual(searchTerms('tool number 2'), ['tool', 'number', '2']);
  assert.deepEqual(searchTerms('Plan B for version 3.1'), ['plan', 'b', 'version', '3', '1']);
  assert.deepEqual(searchTerms("don't use Caroline's car, it's 7 km"), ['don', 'use', 'caroline', 'car', '7', 'km']);
  assert.deepEqual(searchTerms('what’s a I'), []);
  assert.deepEqual(searchTerms("the '3 of us"), ['3']);
});

test('query syntax never survives into a term', () => {
  assert.deepEqual(searchTerms('"x" OR y* NEAR(z) -w !&|():*'), ['x', 'y', 'near', 'z', 'w']);
});

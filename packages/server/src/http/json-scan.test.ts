import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_JSON_DEPTH, scanJson } from './json-scan.js';

const scan = (text: string, maxDepth?: number) => scanJson(new TextEncoder().encode(text), maxDepth);

describe('scanJson', () => {
  test('counts nesting of arrays and objects, up to the limit and not one more', () => {
    const nested = (n: number) => `${'{"a":'.repeat(n - 1)}[${']'}${'}'.repeat(n - 1)}`;
    assert.equal(scan(nested(MAX_JSON_DEPTH)).tooDeep, false);
    assert.equal(scan(nested(MAX_JSON_DEPTH + 1)).tooDeep, true);
    assert.equal(scan('[[[]]]', 2).tooDeep, true);
    assert.equal(scan('[[],[],[]]', 2).tooDeep, false, 'siblings do not add up');
  });

  test('brackets and quotes inside strings do not count', () => {
    assert.equal(scan(`{"a":"${'['.repeat(500)}"}`).tooDeep, false);
    assert.equal(scan(`{"a":"quote \\" then ${'{'.repeat(500)}"}`).tooDeep, false);
    assert.equal(
      scan(`{"a":"backslash \\\\", "b":${'['.repeat(100)}}`).tooDeep,
      true,
      'an escaped backslash ends before the quote',
    );
  });

  test('finds \\u0000 escapes and raw NUL bytes, not the text "\\\\u0000"', () => {
    assert.equal(scan('{"a":"x\\u0000y"}').hasNul, true);
    assert.equal(scan('{"a":"x\u0000y"}').hasNul, true);
    assert.equal(scan('{"a":"x\\\\u0000y"}').hasNul, false, 'a literal backslash followed by u0000');
    assert.equal(scan('{"a":"\\u00001"}').hasNul, true);
    assert.equal(scan('{"a":"\\u0001"}').hasNul, false);
  });

  test('only bodies that start like JSON are scanned', () => {
    assert.equal(scan('  \n[1]').looksLikeJson, true);
    assert.equal(scan('accept=true&oauth_query=%5B%5B').looksLikeJson, false);
    assert.equal(scan('').looksLikeJson, false);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { thousands } from './client-metadata-limits.js';

test('client metadata limits: numbers in messages are grouped as en-US groups them', () => {
  for (const n of [0, 7, 64, 200, 999, 1000, 2000, 16_000, 123_456, 1_000_000, 9_876_543_210])
    assert.equal(thousands(n), n.toLocaleString('en-US'));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimiter } from './rate-limit.js';

test('a burst is allowed, then the rate, per key', () => {
  let now = 0;
  const limiter = new RateLimiter(60, 120, () => now);
  assert.equal(limiter.take('a', 120), 0);
  assert.equal(limiter.take('a', 1), 1, 'empty: wait a second for one token');
  assert.equal(limiter.take('b', 50), 0, 'keys are independent');
  now += 30_000;
  assert.equal(limiter.take('a', 30), 0, 'refilled at 60 a minute');
  assert.equal(limiter.take('a', 60), 60);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LONGEST_WAIT_MS, nextPollDelay, POLL_EVERY_MS } from './live-poll.js';

test('the status poll keeps a 2 s pace, doubles after each failure in a row up to a minute, and honours Retry-After', () => {
  assert.equal(nextPollDelay(0), 2000);
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 10].map((n) => nextPollDelay(n)),
    [4000, 8000, 16000, 32000, 60000, 60000, 60000],
  );
  assert.equal(nextPollDelay(0, 45), 45_000, 'a 429 with Retry-After: 45 waits 45 s, not 2');
  assert.equal(nextPollDelay(5, 3), LONGEST_WAIT_MS, 'a short Retry-After does not cut a longer backoff');
  assert.ok(POLL_EVERY_MS >= 2000);
});

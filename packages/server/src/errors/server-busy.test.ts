import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDatabaseUnavailable } from './database-unavailable.js';
import { DatabaseBusyError, isServerBusy } from './server-busy.js';

test('a busy pool is recognised however it is wrapped, and is never an outage', () => {
  const busy = new DatabaseBusyError(10, 5_000);
  const wrapped = [busy, new Error('Failed to get session', { cause: new Error('wrapped', { cause: busy }) }), new AggregateError([busy], 'failed')];
  for (const error of wrapped) {
    assert.equal(isServerBusy(error), true, error.message);
    assert.equal(isDatabaseUnavailable(error), false, error.message);
  }
  assert.match(busy.message, /all 10 database connections of this instance stayed in use for 5000 ms/);
});

test('an outage, a plain error or nothing is not busy', () => {
  for (const error of [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), new Error('timeout exceeded when trying to connect'), new TypeError('x'), undefined, 'busy']) {
    assert.equal(isServerBusy(error), false, String(error));
  }
});

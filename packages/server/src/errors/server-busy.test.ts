import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDatabaseUnavailable } from './database-unavailable.js';
import {
  BUSY_DATABASE,
  busyReason,
  DATABASE_LOCKED_RETRY_AFTER_S,
  DatabaseBusyError,
  DatabaseLockedError,
  isServerBusy,
  LOCKED_DATABASE,
} from './server-busy.js';

test('a busy pool is recognised however it is wrapped, and is never an outage', () => {
  const busy = new DatabaseBusyError(10, 5_000);
  const wrapped = [
    busy,
    new Error('Failed to get session', { cause: new Error('wrapped', { cause: busy }) }),
    new AggregateError([busy], 'failed'),
  ];
  for (const error of wrapped) {
    assert.equal(isServerBusy(error), true, error.message);
    assert.equal(isDatabaseUnavailable(error), false, error.message);
  }
  assert.match(busy.message, /all 10 database connections of this instance stayed in use for 5000 ms/);
});

test('an outage, a plain error or nothing is not busy', () => {
  for (const error of [
    Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    new Error('timeout exceeded when trying to connect'),
    new TypeError('x'),
    undefined,
    'busy',
  ]) {
    assert.equal(isServerBusy(error), false, String(error));
  }
});

test("another process's SQLite lock is busy too, with its own reason and a shorter wait", () => {
  const locked = new DatabaseLockedError(750, {
    cause: Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
  });
  for (const error of [locked, new Error('Failed to get session', { cause: locked })]) {
    assert.deepEqual(busyReason(error), { why: LOCKED_DATABASE, retryAfterSeconds: DATABASE_LOCKED_RETRY_AFTER_S });
    assert.equal(isDatabaseUnavailable(error), false);
  }
  assert.equal(busyReason(new DatabaseBusyError(2, 300))?.why, BUSY_DATABASE);
  // A bare SQLITE_BUSY is the driver's to wait out; only its verdict is an answer.
  assert.equal(busyReason(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })), undefined);
});

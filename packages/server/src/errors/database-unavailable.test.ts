import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDatabaseError, isDatabaseUnavailable } from './database-unavailable.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

test('errors that mean "no usable connection" are recognised, however they are wrapped', () => {
  for (const code of [
    '57P01',
    '57P02',
    '57P03',
    '08000',
    '08001',
    '08003',
    '08004',
    '08006',
    '53300',
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
  ]) {
    assert.ok(isDatabaseUnavailable(pgError(code)), code);
  }
  assert.ok(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')));
  assert.ok(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout')));
  assert.ok(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect')));
  assert.ok(isDatabaseUnavailable(pgError('55000', 'database "cairn" is not currently accepting connections')));
  // Node's connect to "localhost" tries ::1 and 127.0.0.1 and reports both in an AggregateError.
  assert.ok(isDatabaseUnavailable(new AggregateError([pgError('ECONNREFUSED')], 'connect failed')));
  assert.ok(
    isDatabaseUnavailable(
      new Error('Failed to get session', { cause: new Error('wrapped', { cause: pgError('57P01') }) }),
    ),
  );
});

test('errors of the statement or the data are not an outage', () => {
  assert.equal(isDatabaseUnavailable(pgError('23505', 'duplicate key value violates unique constraint')), false);
  assert.equal(isDatabaseUnavailable(pgError('42P01', 'relation "entry" does not exist')), false);
  assert.equal(isDatabaseUnavailable(pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00')), false);
  assert.equal(isDatabaseUnavailable(pgError('55000', 'cannot refresh materialized view concurrently')), false);
  assert.equal(isDatabaseUnavailable(pgError('SQLITE_CONSTRAINT_UNIQUE')), false);
  assert.equal(isDatabaseUnavailable(new TypeError('Cannot read properties of undefined')), false);
  assert.equal(isDatabaseUnavailable(undefined), false);
  assert.equal(isDatabaseUnavailable('Connection terminated'), false);
});

test('the log description never carries a connection string', () => {
  const described = describeDatabaseError(
    pgError('ECONNREFUSED', 'could not reach postgres://cairn:s3cret@db.internal:5432/cairn'),
  );
  assert.equal(described.code, 'ECONNREFUSED');
  assert.ok(!described.message.includes('s3cret'), described.message);
});

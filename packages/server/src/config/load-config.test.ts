import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './load-config.js';

test('the overload and pool settings default to what docs/overload.md says', () => {
  const config = loadConfig({});
  assert.deepEqual(config.overload, { maxConcurrent: 4, maxQueued: 64, maxQueueWaitMs: 2_000 });
  assert.deepEqual(config.databasePool, { size: 10, connectTimeoutMs: 5_000 });
  // On PostgreSQL as many requests run at once as the pool has connections.
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://db/cairn' }).overload.maxConcurrent, 10);
  assert.equal(
    loadConfig({ DATABASE_URL: 'postgres://db/cairn', CAIRN_DATABASE_POOL_SIZE: '24' }).overload.maxConcurrent,
    24,
  );
});

test('the overload and pool settings are read from the environment', () => {
  const config = loadConfig({
    CAIRN_MAX_CONCURRENT_REQUESTS: '4',
    CAIRN_MAX_QUEUED_REQUESTS: '0',
    CAIRN_MAX_QUEUE_WAIT_MS: '250',
    CAIRN_DATABASE_POOL_SIZE: '20',
    CAIRN_DATABASE_CONNECT_TIMEOUT_MS: '1500',
  });
  assert.deepEqual(config.overload, { maxConcurrent: 4, maxQueued: 0, maxQueueWaitMs: 250 });
  assert.deepEqual(config.databasePool, { size: 20, connectTimeoutMs: 1_500 });
});

test('an unusable value names the variable and what it must be', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ CAIRN_MAX_CONCURRENT_REQUESTS: '0' }, /CAIRN_MAX_CONCURRENT_REQUESTS: must be at least 1/],
    [{ CAIRN_MAX_CONCURRENT_REQUESTS: 'lots' }, /CAIRN_MAX_CONCURRENT_REQUESTS: /],
    [{ CAIRN_MAX_QUEUED_REQUESTS: '-1' }, /CAIRN_MAX_QUEUED_REQUESTS: must be 0 \(no queue\) or more/],
    [{ CAIRN_MAX_QUEUE_WAIT_MS: '1.5' }, /CAIRN_MAX_QUEUE_WAIT_MS: must be a whole number of milliseconds/],
    [{ CAIRN_MAX_QUEUE_WAIT_MS: '600000' }, /CAIRN_MAX_QUEUE_WAIT_MS: must be at most 60000 ms/],
    [{ CAIRN_DATABASE_POOL_SIZE: '1' }, /CAIRN_DATABASE_POOL_SIZE: must be at least 2/],
    [{ CAIRN_DATABASE_CONNECT_TIMEOUT_MS: '10' }, /CAIRN_DATABASE_CONNECT_TIMEOUT_MS: must be at least 100 ms/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (error: Error) =>
        error instanceof ConfigError &&
        message.test(error.message) &&
        /Fix the variable\(s\) above/.test(error.message),
      JSON.stringify(env),
    );
  }
});

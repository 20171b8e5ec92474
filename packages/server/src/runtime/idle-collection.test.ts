import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { exposedGc, IdleCollection } from './idle-collection.js';

test('idle collection: V8 hands its gc() over without --expose-gc, and does not expose it to later contexts', async () => {
  const gc = exposedGc();
  assert.equal(typeof gc, 'function');
  gc!();
  const { runInNewContext } = await import('node:vm');
  assert.equal(runInNewContext('typeof gc'), 'undefined');
});

test('idle collection: once after start, once after each stretch of requests, never while requests keep coming', async () => {
  const server = new EventEmitter();
  let collections = 0;
  const collection = new IdleCollection(server, () => collections++, 200);
  try {
    await sleep(400);
    assert.equal(collections, 2, 'start-up is followed by one idle collection (two gc passes)');
    await sleep(300);
    assert.equal(collections, 2, 'no request, no further collection');
    for (let i = 0; i < 15; i++) {
      server.emit('request');
      await sleep(20);
    }
    assert.equal(collections, 2, 'requests 20 ms apart never leave the server idle for 200 ms');
    await sleep(450);
    assert.equal(collections, 4, 'the stretch of requests is followed by one idle collection');
  } finally {
    collection.stop();
  }
  server.emit('request');
  await sleep(300);
  assert.equal(collections, 4, 'stopped: requests no longer schedule a collection');
});

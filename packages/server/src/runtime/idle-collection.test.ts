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

test('idle collection: two passes after start and after each stretch of requests, none while requests keep coming', async () => {
  const server = new EventEmitter();
  let collections = 0;
  // Passes once idle for 300 ms, the second 200 ms after the first; checks fall 100 ms from either side.
  const collection = new IdleCollection(server, () => collections++, 300, 200);
  try {
    await sleep(400);
    assert.equal(collections, 1, 'start-up is followed by a first pass once idle');
    await sleep(200);
    assert.equal(collections, 2, 'and a second one, later');
    await sleep(500);
    assert.equal(collections, 2, 'no request, no further collection');
    for (let i = 0; i < 20; i++) {
      server.emit('request');
      await sleep(20);
    }
    assert.equal(collections, 2, 'requests 20 ms apart never leave the server idle for 300 ms');
    await sleep(600);
    assert.equal(collections, 4, 'the stretch of requests is followed by two passes');
    server.emit('request');
    await sleep(400);
    assert.equal(collections, 5, 'a request: one pass once idle again');
    server.emit('request');
    await sleep(200);
    assert.equal(collections, 5, 'a request between the passes puts the second one off');
    await sleep(200);
    assert.equal(collections, 6, 'and starts over: a first pass once idle');
    await sleep(200);
    assert.equal(collections, 7, 'then the second');
  } finally {
    collection.stop();
  }
  server.emit('request');
  await sleep(500);
  assert.equal(collections, 7, 'stopped: requests no longer schedule a collection');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageBatch } from './usage-batch.js';

test('usage batch: one write per flush with the latest use per key; a failed write is retried, never over a newer use', async () => {
  const written: string[][] = [];
  let fail = false;
  const batch = new UsageBatch<string>(async (uses) => {
    if (fail) throw new Error('database down');
    written.push(uses);
  }, 0);
  batch.note('k1', 'first');
  batch.note('k1', 'second');
  batch.note('k2', 'other');
  assert.equal(batch.pendingUse('k1'), 'second');
  await batch.flush();
  assert.deepEqual(written, [['second', 'other']]);
  assert.equal(batch.pendingUse('k1'), undefined);
  await batch.flush();
  assert.equal(written.length, 1, 'nothing pending, nothing written');

  fail = true;
  batch.note('k1', 'third');
  batch.note('k2', 'fourth');
  const flushing = batch.flush();
  batch.note('k2', 'newer');
  await assert.rejects(flushing, /database down/);
  assert.equal(batch.pendingUse('k1'), 'third', 'kept for the next try');
  assert.equal(batch.pendingUse('k2'), 'newer', 'a newer use is not overwritten by the failed one');
  fail = false;
  await batch.close();
  assert.deepEqual(written.at(-1)!.sort(), ['newer', 'third']);
});

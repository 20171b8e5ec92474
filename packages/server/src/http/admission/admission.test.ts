import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Admission, type Admitted, type Refused } from './admission.js';

const settings = (maxConcurrent: number, maxQueued: number, maxQueueWaitMs = 2_000) => ({
  maxConcurrent,
  maxQueued,
  maxQueueWaitMs,
});

/** Lets one microtask round pass, so queued promises that were settled have run their callbacks. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** Enters and records when (in what order) the request was let in or refused. */
function track(admission: Admission, credential: string, log: string[], name = credential) {
  const entered = admission.enter(credential);
  const outcome: { turn?: Admitted | Refused } = {};
  void entered.then((turn) => {
    outcome.turn = turn;
    log.push(`${name}:${turn.admitted ? 'in' : (turn as Refused).reason}`);
  });
  return outcome;
}

describe('Admission', () => {
  test('lets in up to maxConcurrent at once, queues up to maxQueued, and refuses the rest at once as full', async () => {
    const admission = new Admission(settings(2, 1));
    const log: string[] = [];
    const a = track(admission, 'k', log, 'a');
    const b = track(admission, 'k', log, 'b');
    const c = track(admission, 'k', log, 'c');
    const d = track(admission, 'k', log, 'd');
    await settled();
    assert.deepEqual(log, ['a:in', 'b:in', 'd:full']);
    assert.deepEqual(admission.load, { running: 2, queued: 1 });
    const refusal = d.turn as Refused;
    assert.ok(refusal.retryAfterSeconds >= 1 && refusal.retryAfterSeconds <= 30, `${refusal.retryAfterSeconds}`);
    (a.turn as Admitted).release();
    await settled();
    assert.deepEqual(log, ['a:in', 'b:in', 'd:full', 'c:in']);
    (b.turn as Admitted).release();
    (c.turn as Admitted).release();
    (c.turn as Admitted).release(); // a second release gives nothing back twice
    assert.deepEqual(admission.load, { running: 0, queued: 0 });
  });

  test('with no queue, everything past maxConcurrent is refused', async () => {
    const admission = new Admission(settings(1, 0));
    const log: string[] = [];
    track(admission, 'k', log, 'a');
    track(admission, 'other', log, 'b');
    await settled();
    assert.deepEqual(log, ['a:in', 'b:full']);
  });

  test('turns go round the credentials: a flood from one waits behind the others', async () => {
    const admission = new Admission(settings(1, 100));
    const log: string[] = [];
    const running = track(admission, 'flood', log, 'f0');
    const waiting = [1, 2, 3, 4].map((i) => track(admission, 'flood', log, `f${i}`));
    const quiet = track(admission, 'quiet', log, 'q');
    await settled();
    (running.turn as Admitted).release();
    await settled();
    (waiting[0]!.turn as Admitted).release();
    await settled();
    assert.deepEqual(
      log,
      ['f0:in', 'f1:in', 'q:in'],
      'the quiet credential is let in after one more of the flood, not after all four',
    );
    assert.ok(quiet.turn?.admitted);
  });

  test('one credential holds at most an eighth of the queue; the rest stays open to the others, and nobody waiting is pushed out', async () => {
    const admission = new Admission(settings(1, 16));
    const log: string[] = [];
    track(admission, 'flood', log, 'f0');
    for (const i of [1, 2, 3]) track(admission, 'flood', log, `f${i}`);
    track(admission, 'quiet', log, 'q');
    await settled();
    assert.deepEqual(log, ['f0:in', 'f3:full'], 'the flood waits with two (16 / 8), its third is refused at once');
    assert.deepEqual(admission.load, { running: 1, queued: 3 });
  });

  test('refusesNow says what entering would answer at once, without taking a place', async () => {
    const admission = new Admission(settings(1, 8));
    const log: string[] = [];
    assert.equal(admission.refusesNow('flood'), undefined, 'free: let in');
    track(admission, 'flood', log, 'f0');
    track(admission, 'flood', log, 'f1');
    await settled();
    assert.equal(admission.refusesNow('flood')?.reason, 'full', 'the flood has its share (8 / 8 = 1) waiting already');
    assert.equal(admission.refusesNow('quiet'), undefined, 'another credential may still wait');
    assert.deepEqual(admission.load, { running: 1, queued: 1 }, 'asking took no place');
    assert.deepEqual(log, ['f0:in']);
  });

  test('a request that waits its longest allowed turn is refused as timeout', async () => {
    const admission = new Admission(settings(1, 5, 50));
    const first = (await admission.enter('a')) as Admitted;
    const started = Date.now();
    const late = await admission.enter('b');
    assert.equal(late.admitted, false);
    assert.equal((late as Refused).reason, 'timeout');
    assert.ok(Date.now() - started >= 45, 'it waited the allowed time first');
    assert.deepEqual(admission.load, { running: 1, queued: 0 });
    first.release();
  });

  test('a newcomer expected to wait longer than allowed is refused at once as slow, counting the turns ahead of it', async () => {
    let clock = 0;
    const admission = new Admission(settings(1, 100, 1_000), () => clock);
    // Sixty requests of 400 ms each teach the moving average (it starts at 20 ms) about 400 ms.
    for (let i = 0; i < 60; i++) {
      const turn = (await admission.enter('a')) as Admitted;
      clock += 400;
      turn.release();
    }
    const running = (await admission.enter('a')) as Admitted;
    const log: string[] = [];
    for (let i = 0; i < 6; i++) track(admission, `c${i}`, log);
    await settled();
    // c0 expects 400 ms, c1 800 ms: they wait; c2 on would expect 1,200 ms or more.
    assert.deepEqual(log, ['c2:slow', 'c3:slow', 'c4:slow', 'c5:slow']);
    assert.deepEqual(admission.load, { running: 1, queued: 2 });
    running.release();
    await settled();
    assert.deepEqual(log.slice(4), ['c0:in']);
  });

  test('when the pace drops, the waiting requests that would time out are refused at once as slow, not after their longest wait', async () => {
    let clock = 0;
    const admission = new Admission(settings(1, 100, 1_000), () => clock);
    // Sixty requests of 100 ms each teach the moving average about 100 ms.
    for (let i = 0; i < 60; i++) {
      const turn = (await admission.enter('a')) as Admitted;
      clock += 100;
      turn.release();
    }
    const slow = (await admission.enter('a')) as Admitted;
    const log: string[] = [];
    for (let i = 0; i < 5; i++) track(admission, `c${i}`, log);
    await settled();
    assert.deepEqual(log, [], 'at 100 ms a request, all five expect to be let in within the second');
    // The running request takes 900 ms: the average rises to about 180 ms, and the four still waiting have 100 ms left.
    clock += 900;
    slow.release();
    await settled();
    assert.deepEqual(
      log.sort(),
      ['c0:in', 'c1:slow', 'c2:slow', 'c3:slow', 'c4:slow'],
      'refused now, not when their 1,000 ms run out',
    );
    assert.deepEqual(admission.load, { running: 1, queued: 0 });
  });

  test('a freed turn is handed over on a later turn of the event loop, not in the microtasks of the answer that freed it', async () => {
    const admission = new Admission(settings(1, 5));
    const first = (await admission.enter('a')) as Admitted;
    const log: string[] = [];
    track(admission, 'b', log);
    first.release();
    assert.deepEqual(admission.load, { running: 1, queued: 0 }, 'the turn is taken for it at once');
    for (let i = 0; i < 100; i++) await Promise.resolve();
    assert.deepEqual(log, [], 'so that I/O waiting (probes, refusals, the answer just made) goes first');
    await settled();
    assert.deepEqual(log, ['b:in']);
  });

  test('a client that gives up while waiting leaves the queue', async () => {
    const admission = new Admission(settings(1, 5));
    const first = (await admission.enter('a')) as Admitted;
    const abort = new AbortController();
    const waiting = admission.enter('b', abort.signal);
    assert.deepEqual(admission.load, { running: 1, queued: 1 });
    abort.abort();
    assert.equal((await waiting).admitted, false);
    assert.deepEqual(admission.load, { running: 1, queued: 0 });
    first.release();
    assert.deepEqual(admission.load, { running: 0, queued: 0 });
  });
});

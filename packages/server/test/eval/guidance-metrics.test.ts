import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { folds, guidanceFigures } from '../../eval/guidance-metrics.js';

describe('guidance harness arithmetic', () => {
  const facts = { always: new Set(['a1']), replaced: new Set(['old']) };

  test('recall pools applicable rules; precision leaves "always" rules out; a replaced rule marks its task', () => {
    const f = guidanceFigures(
      [
        { id: 't1', applies: ['r1', 'r2', 'a1'], returned: ['r1', 'a1', 'x'], named: ['r2', 'y'], chars: 100, ms: 5 },
        { id: 't2', applies: ['r3', 'r4'], returned: ['old', 'r3'], named: ['z'], chars: 300, ms: 9 },
      ],
      facts,
    );
    // Found r1, a1, r3 of five applicable rules; r2 was named as well.
    assert.equal(f.recall, 60);
    assert.equal(f.recallInView, 80);
    assert.equal(f.maxChars, 300);
    // Scored returns: r1, x, old, r3 (a1 left out); r1 and r3 apply.
    assert.equal(f.precision, 50);
    assert.equal(f.tasksShownReplaced, 1);
    assert.equal(f.medianRules, 2);
    assert.equal(f.medianChars, 100);
    assert.equal(f.p95Ms, 9);
  });

  test('nothing returned is zero precision, not a division by zero', () => {
    const f = guidanceFigures([{ id: 't', applies: ['r1'], returned: [], named: [], chars: 0, ms: 1 }], facts);
    assert.equal(f.recall, 0);
    assert.equal(f.precision, 0);
  });

  test('folds deal tasks round-robin, every task in exactly one fold', () => {
    assert.deepEqual(folds([1, 2, 3, 4, 5, 6, 7], 3), [
      [1, 4, 7],
      [2, 5],
      [3, 6],
    ]);
  });
});

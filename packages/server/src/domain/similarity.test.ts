import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NEAR_DUPLICATE_THRESHOLD, similarity } from './similarity.js';

test('similarity: a reworded rule is a near-duplicate; the same words said by another speaker are not', () => {
  const rule = 'Code review\nEvery pull request needs one approving review before merge.';
  const reworded = 'Code review rule\nEvery pull request needs one approving review before the merge.';
  assert.ok(similarity(rule, reworded) >= NEAR_DUPLICATE_THRESHOLD, `${similarity(rule, reworded)}`);
  assert.ok(similarity(rule, reworded) < 1);
  assert.equal(similarity(rule, rule), 1);
  const nate = 'Nate: Bye Joanna!';
  const joanna = 'Joanna: Bye Nate!';
  assert.ok(similarity(nate, joanna) < NEAR_DUPLICATE_THRESHOLD, `${similarity(nate, joanna)}`);
  assert.ok(similarity('Deploy on Tuesdays', 'Lunch at noon') < 0.1);
  assert.equal(similarity('the and of', 'a an the'), 1, 'two texts of function words only are alike');
});

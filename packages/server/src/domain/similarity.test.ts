import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

test('similarity: numbers, versions, negations, named things and a replaced word make different knowledge', () => {
  const distinct = [
    ['Preference 1\nAlways use tool number 1 for builds.', 'Preference 2\nAlways use tool number 2 for builds.'],
    ['Use Python 2', 'Use Python 3'],
    [
      'Python\nUse Python 3.11 in the data pipeline and the nightly jobs.',
      'Python\nUse Python 3.12 in the data pipeline and the nightly jobs.',
    ],
    ['Retry failed uploads 3 times', 'Retry failed uploads 5 times'],
    ['Logging\nAlways log request bodies in staging.', 'Logging\nNever log request bodies in staging.'],
    [
      'Do force-push to your own feature branches, it keeps history clean.',
      "Don't force-push to your own feature branches, it keeps history clean.",
    ],
    [
      'Deploy the API to api-1.internal.example.com every weekday morning.',
      'Deploy the API to api-2.internal.example.com every weekday morning.',
    ],
    [
      'Settings come from /etc/acme/config.yaml on every host we run.',
      'Settings come from /etc/acme/local.yaml on every host we run.',
    ],
    [
      'Always use pnpm for installing dependencies in the web app repository.',
      'Always use yarn for installing dependencies in the web app repository.',
    ],
    ['Use the ORM for all queries.', 'Use the ORM for all queries except reports.'],
  ];
  for (const [a, b] of distinct)
    assert.ok(similarity(a!, b!) < NEAR_DUPLICATE_THRESHOLD, `${a} / ${b}: ${similarity(a!, b!)}`);
  // The same rule with words added, inflected or in another case is still the same knowledge.
  assert.ok(
    similarity(
      'Tests\nEvery bug fix comes with a regression test.',
      'Tests\nEvery bug fix should come with a regression test.',
    ) >= NEAR_DUPLICATE_THRESHOLD,
  );
  assert.ok(
    similarity(
      'Formatting\nRun prettier before committing TypeScript files.',
      'formatting\nrun prettier before committing typescript files.',
    ) >= NEAR_DUPLICATE_THRESHOLD,
  );
});

test('similarity on the hand-written pairs: no distinct rule refused, most rewordings caught', () => {
  const pairs = JSON.parse(
    readFileSync(new URL('../../test/fixtures/duplicate-pairs.json', import.meta.url), 'utf8'),
  ) as { same: [string, string][]; different: [string, string][] };
  assert.equal(pairs.same.length + pairs.different.length, 200);
  const refused = pairs.different.filter(([a, b]) => similarity(a, b) >= NEAR_DUPLICATE_THRESHOLD);
  assert.deepEqual(refused, [], 'distinct knowledge taken for a duplicate');
  const caught = pairs.same.filter(([a, b]) => similarity(a, b) >= NEAR_DUPLICATE_THRESHOLD).length;
  assert.ok(caught >= 75, `only ${caught} of ${pairs.same.length} rewordings caught`);
});

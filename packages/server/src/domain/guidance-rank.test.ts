import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RuleIndex, topicSignals } from './guidance-rank.js';

const rule = (id: string, title: string, content: string, when?: string) => ({
  id,
  title,
  tags: [],
  content,
  applies: when ? { always: false, files: [], projects: [], when } : null,
});

const rules = [
  rule(
    'r1',
    'Expand, then contract',
    'Add the new shape first, move readers, remove the old shape later.',
    'Renaming or dropping a database column; schema migrations.',
  ),
  rule(
    'r2',
    'Dark launches',
    'Anything customers notice ships behind a toggle.',
    'New screens or response fields customers can see.',
  ),
  rule('r3', 'Commit messages', 'Use the imperative mood in subjects.'),
];

test('a rule is found by the words of its when, which its title and content do not hold', () => {
  const scores = new RuleIndex(rules).scores({ task: 'rename a column of the orders table' });
  assert.ok(scores.get('r1')! > 0);
  assert.equal(scores.get('r2'), 0);
  assert.equal(scores.get('r3'), 0);
  const without = new RuleIndex(rules.map((r) => ({ ...r, applies: null }))).scores({
    task: 'rename a column of the orders table',
  });
  assert.equal(without.get('r1'), 0, 'without its when, nothing of the task is in the rule');
});

test('a concern brings the rule it names, and counts alone in its own signal', () => {
  const index = new RuleIndex(rules);
  const signals = topicSignals(index, {
    task: 'tidy the checkout page',
    concerns: ['customers can see it', 'commit messages'],
  });
  assert.ok((signals.get('r2')?.concern ?? 0) > 0.9, JSON.stringify([...signals]));
  assert.ok((signals.get('r3')?.concern ?? 0) > 0.9);
  assert.equal(signals.get('r1'), undefined, 'a rule sharing no word with task or concerns has no signals');
  const best = Math.max(...[...signals.values()].map((s) => s.text));
  assert.equal(best, 1, 'the text signal is relative to the best rule');
});

test('each rule carries its best place among the rules one concern alone ranks; without concerns, none', () => {
  const index = new RuleIndex(rules);
  const signals = topicSignals(index, {
    task: 'rename a column and ship it to customers',
    concerns: ['database column rename', 'response fields customers see'],
  });
  assert.equal(signals.get('r1')?.concernPlace, 0, 'the first concern names r1');
  assert.equal(signals.get('r2')?.concernPlace, 0, 'the second concern names r2');
  const plain = topicSignals(index, { task: 'rename a column' });
  assert.equal(plain.get('r1')?.concernPlace, undefined);
  const second = topicSignals(new RuleIndex([...rules, rule('r4', 'Column renames', 'Say column twice: column.')]), {
    task: 'tidy up',
    concerns: ['column'],
  });
  assert.equal(second.get('r4')?.concernPlace, 0);
  assert.equal(second.get('r1')?.concernPlace, 1, 'one rule scores above it for that concern');
});

test('stop words and lone letters match nothing; a lone digit does', () => {
  const index = new RuleIndex([rule('a', 'The and of', 'x'), rule('b', 'Version 2', 'numbers')]);
  const scores = index.scores({ task: 'the of and x' });
  assert.equal(scores.get('a'), 0);
  assert.ok(index.scores({ task: 'version 2' }).get('b')! > index.scores({ task: 'version' }).get('b')!);
});

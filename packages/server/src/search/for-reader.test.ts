import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testEntry } from '../testing/test-entry.js';
import { aboutConversation, forReader } from './for-reader.js';

const hit = (id: string, kind: string, score: number) => ({
  entry: testEntry({ id, datapackId: 'dpk', title: id, content: id, kind: kind as 'note' }),
  score,
});
const shown = (hits: ReturnType<typeof hit>[], text: string, kinds?: string[], hybrid = true) =>
  forReader(hits, text, kinds, hybrid).map((h) => [h.entry.id, Math.round(h.score * 1000) / 1000]);

test('hits far below the best are left out, whatever their kind', () => {
  const hits = [hit('rule', 'policy', 2), hit('close', 'note', 0.6), hit('far', 'note', 0.4), hit('nil', 'note', 0)];
  assert.deepEqual(shown(hits, 'database rollback'), [
    ['rule', 2],
    ['close', 0.6],
  ]);
});

test('a rule comes before a turn that scores less than 1.5 times more, unless the query is about a conversation', () => {
  const hits = [hit('turn', 'conversation', 1.4), hit('rule', 'preference', 1), hit('loud', 'conversation', 1.8)];
  assert.deepEqual(shown([hit('loud', 'conversation', 1.8), ...hits.slice(0, 2)], 'pnpm'), [
    ['loud', 1.2],
    ['rule', 1],
    ['turn', 0.933],
  ]);
  for (const text of ['what did we talk about pnpm', 'pnpm, as she said', 'our chat yesterday about pnpm'])
    assert.deepEqual(shown(hits.slice(0, 2), text), [
      ['turn', 1.4],
      ['rule', 1],
    ]);
  assert.deepEqual(shown(hits.slice(0, 2), 'pnpm', ['preference', 'conversation']), [
    ['turn', 1.4],
    ['rule', 1],
  ]);
  assert.deepEqual(
    forReader(hits.slice(0, 2), 'Melanie pnpm', undefined, true, true).map((h) => h.entry.id),
    ['turn', 'rule'],
    'a query naming a speaker of the turns',
  );
});

test('a hybrid hit below the floor of meaning is left out even when it is the best; a lexical one is not', () => {
  const faint = [hit('faint', 'note', 0.12), hit('fainter', 'note', 0.01)];
  assert.deepEqual(shown(faint, 'quantum chromodynamics'), []);
  assert.deepEqual(shown(faint, 'quantum chromodynamics', undefined, false), [['faint', 0.12]]);
});

test('what counts as being about a conversation', () => {
  for (const text of ['What did we talk about?', 'he mentioned it', 'the discussion an hour ago', 'Transcripts'])
    assert.ok(aboutConversation(text, undefined), text);
  for (const text of ['database migration rollback', 'ask for a review', 'session cookies', 'tool number 2'])
    assert.ok(!aboutConversation(text, undefined), text);
  assert.ok(aboutConversation('pnpm', ['conversation']));
  assert.ok(aboutConversation('when did Melanie use pnpm', undefined, true), 'it names a speaker');
  assert.ok(!aboutConversation('pnpm', ['preference']));
});

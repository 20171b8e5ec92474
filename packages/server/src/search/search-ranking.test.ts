import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from '../store/types.js';
import { rankEntries as rankCandidates, words } from './search-ranking.js';

const entry = (id: string, title: string, content: string, updatedAt = '2026-01-01T00:00:00.000Z'): Entry => ({
  id,
  datapackId: 'd',
  kind: 'note',
  title,
  content,
  tags: [],
  contentHash: id,
  version: 1,
  createdBy: 'u',
  createdClient: null,
  createdAt: updatedAt,
  updatedBy: 'u',
  updatedClient: null,
  updatedAt,
  deletedAt: null,
});

test('ranking: a title hit outranks a body hit, word forms meet, entries without a term are dropped', () => {
  const hits = rankCandidates(
    [
      entry('body', 'Notes', 'We were researching adoption agencies.'),
      entry('title', 'Research plan', 'Read the papers.'),
      entry('none', 'Lunch', 'Soup.'),
    ],
    ['research'],
    3,
    10,
  );
  assert.deepEqual(
    hits.map((h) => h.entry.id),
    ['title', 'body'],
  );
  assert.ok(hits.every((h) => h.score > 0));
});

test('ranking: a rare term weighs more than a common one; ties go to the most recent entry', () => {
  const common = Array.from({ length: 8 }, (_, i) =>
    entry(`c${i}`, 'x', 'canary canary', `2026-01-0${i + 1}T00:00:00.000Z`),
  );
  const rare = entry('rare', 'x', 'rollback');
  const hits = rankCandidates([...common, rare], ['canary', 'rollback'], 10, 3);
  assert.equal(hits[0]!.entry.id, 'rare');
  assert.deepEqual(
    hits.slice(1).map((h) => h.entry.id),
    ['c7', 'c6'],
  );
});

test('words fold case and accents like the full-text indexes', () => {
  assert.deepEqual(words('Crème BRÛLÉE, v2!'), ['creme', 'brulee', 'v2']);
});

test("ranking: a captured turn's title (a snippet of its text) weighs like text, not like a title", () => {
  const turn = { ...entry('turn', 'Prompt · Deploy tonight?', 'Deploy tonight? Sure.'), kind: 'conversation' };
  const note = entry('note', 'Checklist', 'Deploy checklist, then deploy again, deploy.');
  const [first] = rankCandidates([turn, note], ['deploy'], 10, 2);
  assert.equal(first!.entry.id, 'note');
  const asNote = rankCandidates([{ ...turn, kind: 'note' }, note], ['deploy'], 10, 2);
  assert.equal(asNote[0]!.entry.id, 'turn', 'the same entry with an 8× title would lead');
});

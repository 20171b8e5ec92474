import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuseRanking, type HybridItem, speakerBoosts, speakerIndex } from './hybrid-ranking.js';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const turn = (id: string, session: string, second: number, lexical: number, speaker?: string): HybridItem => ({
  id,
  updatedAt: at(0),
  lexical,
  turn: { session, at: at(second), speaker: speaker ? [speaker] : undefined },
});
const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

test('hybrid: the answer after a matching question outranks a turn the question never touched', () => {
  // q names the topic, a answers it with other words, z is in the same session but far away.
  const items = [
    turn('q', 's1', 1, 5),
    turn('a', 's1', 2, 0),
    turn('x', 's1', 3, 0),
    turn('y', 's1', 4, 0),
    turn('z', 's1', 5, 0),
  ];
  const ranked = ids(fuseRanking(items, new Set(), 10));
  assert.deepEqual(ranked.slice(0, 2), ['q', 'a']);
  assert.ok(ranked.indexOf('a') < ranked.indexOf('z'), `${ranked}`);
});

test('hybrid: turns of other sessions borrow nothing, and entries that are not turns are not smoothed', () => {
  const items = [turn('q', 's1', 1, 5), turn('other', 's2', 2, 0), { id: 'note', updatedAt: at(0), lexical: 0 }];
  assert.deepEqual(ids(fuseRanking(items, new Set(), 10)), ['q'], 'nothing scores without a match or a neighbour');
});

test('hybrid: a question naming a speaker favours that speaker’s turn over an equal one', () => {
  const items = [turn('mel', 's1', 1, 3, 'melanie'), turn('caro', 's2', 1, 3, 'caroline')];
  assert.deepEqual(ids(fuseRanking(items, new Set(['caroline', 'research']), 10)), ['caro', 'mel']);
  assert.deepEqual(ids(fuseRanking(items, new Set(['melanie']), 10)), ['mel', 'caro']);
});

test('hybrid: only a cosine that stands out from the ranked entries counts, so the closest text wins without any word in common', () => {
  const note = (id: string, semantic: number): HybridItem => ({ id, updatedAt: at(0), lexical: 0, semantic });
  const ranked = fuseRanking(
    [note('car', 0.56), note('tests', 0.42), note('lunch', 0.4), note('rain', 0.38)],
    new Set(),
    10,
  );
  assert.deepEqual(ids(ranked), ['car'], 'above the mean but within a deviation scores nothing');
  assert.ok(ranked[0]!.score > 0.05, `${ranked[0]!.score}`);
  // A lexical match still counts most: a full lexical score beats the best semantic one.
  assert.deepEqual(
    ids(
      fuseRanking(
        [note('car', 0.56), note('tests', 0.34), { id: 'word', updatedAt: at(0), lexical: 2, semantic: 0.3 }],
        new Set(),
        10,
      ),
    )[0],
    'word',
  );
});

test('hybrid: ties go to the newest entry, then the id; the limit holds', () => {
  const items: HybridItem[] = [
    { id: 'b', updatedAt: at(1), lexical: 1 },
    { id: 'a', updatedAt: at(1), lexical: 1 },
    { id: 'new', updatedAt: at(2), lexical: 1 },
  ];
  assert.deepEqual(ids(fuseRanking(items, new Set(), 10)), ['new', 'a', 'b']);
  assert.equal(fuseRanking(items, new Set(), 2).length, 2);
});

test('hybrid: a turn borrows from up to two turns either side and from its session’s best, whatever the session’s length', () => {
  // The formula written out turn by turn, against sessions of one to seven turns (the edges and the middle).
  for (let length = 1; length <= 7; length++) {
    const lexical = Array.from({ length }, (_, k) => ((k * 7 + length * 3) % 5) / 4);
    const items = lexical.map((l, k) => turn(`t${k}`, 's', k + 1, l, k % 2 ? 'melanie' : 'caroline'));
    const near = (j: number) => (j >= 0 && j < length ? lexical[j]! / Math.max(...lexical, 0) || 0 : 0);
    const best = Math.max(0, ...lexical.map((_, k) => near(k)));
    const expected = lexical.map((_, k) => {
      const s = near(k) + 0.35 * (near(k - 1) + near(k + 1)) + 0.2 * (near(k - 2) + near(k + 2)) + 0.3 * best;
      return k % 2 ? s * 1.6 : s;
    });
    const scores = new Map(fuseRanking(items, new Set(['melanie']), 10).map((h) => [h.id, h.score]));
    for (const [k, s] of expected.entries()) assert.equal(scores.get(`t${k}`) ?? 0, s, `turn ${k} of ${length}`);
  }
});

test('hybrid: speakers are indexed once each, and a query naming any word of a speaker’s name boosts their turns only', () => {
  const places = [
    { session: 's', at: at(1), speaker: ['caroline', 'smith'] },
    undefined,
    { session: 's', at: at(2), speaker: ['melanie'] },
    { session: 's', at: at(3), speaker: ['caroline', 'smith'] },
    { session: 's', at: at(4) },
  ];
  const index = speakerIndex(places);
  assert.deepEqual(index.names, [['caroline', 'smith'], ['melanie']]);
  assert.deepEqual([...index.of], [0, -1, 1, 0, -1]);
  assert.deepEqual([...speakerBoosts(index, new Set(['smith']))!], [1, 0, 0, 1, 0]);
  assert.equal(speakerBoosts(index, new Set(['research'])), undefined, 'no speaker named: nothing to boost');
  assert.equal(speakerBoosts(index, new Set()), undefined);
});

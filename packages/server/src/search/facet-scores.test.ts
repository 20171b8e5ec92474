import assert from 'node:assert/strict';
import { test } from 'node:test';
import { facetScores, poolFacetScores } from './facet-scores.js';
import { speakersNamed } from './hybrid-ranking.js';
import { wholePool } from './pool.js';
import { buildPoolIndex } from './pool-index.js';
import { entryWords, type RankedItem } from './search-cache.js';
import { words } from './search-ranking.js';

let next = 0;
const turn = (content: string): RankedItem => {
  const id = `facet-${++next}`;
  return {
    id,
    kind: 'conversation',
    version: 1,
    updatedAt: '2026-01-01T00:00:00.000Z',
    words: entryWords({ title: '', content, tags: [] }),
  };
};

test('facets: a turn that says it in other words scores, one about something else does not', () => {
  const trip = turn('John: Took a short trip last week to Rome to clear my mind a little.');
  const lunch = turn('John: Had a sandwich for lunch and a nap after.');
  const scores = facetScores(
    [trip, lunch],
    words('Where did John travel?').filter((w) => w !== 'john'),
  );
  assert.ok((scores.get(trip.id) ?? 0) > 0.3, `${[...scores]}`);
  assert.equal(scores.get(lunch.id), undefined);
});

test('facets: the word itself scores most, and the score is a share of the facets (at most 1)', () => {
  const both = turn('We went camping by the lake and then swimming.');
  const one = turn('We went camping in the forest.');
  const scores = facetScores([both, one], ['camping', 'swimming']);
  assert.ok(scores.get(both.id)! > scores.get(one.id)!, `${[...scores]}`);
  assert.ok(scores.get(both.id)! <= 1 && scores.get(both.id)! > 0.99, `${scores.get(both.id)}`);
  assert.equal(facetScores([both], ['the', 'and']).size, 0, 'stop words are no facets');
});

test('facets: a query naming a speaker names them, other words do not', () => {
  const places = [
    { session: 's', at: '2026-01-01T00:00:00.000Z', speaker: ['melanie'] },
    { session: 's', at: '2026-01-01T00:00:01.000Z', speaker: ['caroline', 'smith'] },
  ];
  assert.deepEqual(
    [
      ...speakersNamed(
        places.map((p) => p.speaker),
        words('What activities does Melanie partake in?'),
      ),
    ],
    ['melanie'],
  );
  assert.deepEqual(
    [
      ...speakersNamed(
        places.map((p) => p.speaker),
        words('What did we plan?'),
      ),
    ],
    [],
  );
});

const VOCABULARY =
  'travel trip journey vacation holiday rome paris kids children daughter son family paint painting painted art pottery camping hiking swimming lake beach forest sandwich lunch dinner the and'.split(
    ' ',
  );

/** A deterministic pseudo-random pool of notes and captured turns (a turn's title and tags are left empty: facets read only its text). */
function randomPool(size: number, seed: number): RankedItem[] {
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const text = (n: number) =>
    Array.from({ length: n }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]).join(' ');
  return Array.from({ length: size }, (_, i) => {
    const id = `pool-${size}-${i}`;
    const kind = i % 3 === 0 ? 'conversation' : 'note';
    const content = text(1 + (i % 9));
    const entry =
      kind === 'note'
        ? { id, version: 1, title: text(i % 3), content, tags: text(i % 2).split(' ') }
        : { id, version: 1, title: '', content, tags: [] };
    return { id, kind, version: 1, updatedAt: '2026-01-01T00:00:00.000Z', words: entryWords(entry) };
  });
}

test('facets: over a pool index, each item scores as facetScores scores it', () => {
  for (const [size, seed] of [
    [400, 3],
    [60, 11],
  ] as const) {
    const items = randomPool(size, seed);
    const pool = buildPoolIndex(
      items,
      items.map(() => undefined),
    );
    for (const query of [
      'travel with the kids',
      'painting pottery camping lunch',
      'journey',
      'holiday by the lake with family and a sandwich',
      'the and',
      'zzzq',
    ]) {
      const expected = facetScores(items, words(query));
      const scores = poolFacetScores(wholePool(pool), words(query));
      // Into a column a previous search filled (rankPool's scratch): the same scores.
      assert.deepEqual(
        poolFacetScores(wholePool(pool), words(query), new Float64Array(size).fill(7)),
        scores,
        `${query} into a used column`,
      );
      items.forEach((item, i) => {
        const want = expected.get(item.id) ?? 0;
        // The same sums, only rounded in another order.
        assert.ok(Math.abs(scores[i]! - want) <= 1e-15, `${query}: ${item.id} scored ${scores[i]} instead of ${want}`);
        assert.equal(scores[i]! > 0, expected.has(item.id), `${query}: ${item.id}`);
      });
      if (query !== 'the and' && query !== 'zzzq')
        assert.ok(expected.size > size / 4, `${query}: ${expected.size} items met`);
    }
  }
});

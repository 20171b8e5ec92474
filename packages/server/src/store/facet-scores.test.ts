import assert from 'node:assert/strict';
import { test } from 'node:test';
import { facetScores } from './facet-scores.js';
import { speakersNamed } from './hybrid-ranking.js';
import { entryWords, type RankedItem } from './search-cache.js';
import { words } from './search-ranking.js';

let next = 0;
const turn = (content: string): RankedItem => {
  const id = `facet-${++next}`;
  return { id, kind: 'conversation', version: 1, updatedAt: '2026-01-01T00:00:00.000Z', words: entryWords({ id, version: 1, title: '', content, tags: [] }) };
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
  assert.deepEqual([...speakersNamed(places, words('What activities does Melanie partake in?'))], ['melanie']);
  assert.deepEqual([...speakersNamed(places, words('What did we plan?'))], []);
});

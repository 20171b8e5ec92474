import assert from 'node:assert/strict';
import { test } from 'node:test';
import { words } from './search-ranking.js';
import { cosine, textVector } from './word-vectors.js';

const vector = (text: string) => {
  const v = textVector(words(text));
  assert.ok(v, `a vector for ${text}`);
  return v;
};

test('word vectors: related texts without a shared word are closer than unrelated ones', () => {
  const pairs: [string, string, string][] = [
    ['automobile', 'Park the car in the garage', 'Write unit tests first'],
    ['favourite food', 'Ada loves sushi and ramen', 'Deploying on Fridays is forbidden'],
    ['which database do we use', 'We store everything in PostgreSQL', 'The office dog is called Rex'],
  ];
  for (const [query, related, unrelated] of pairs) {
    const q = vector(query);
    assert.ok(cosine(q, vector(related)) > cosine(q, vector(unrelated)) + 0.05, `${query}: "${related}" before "${unrelated}"`);
  }
});

test('word vectors: unit length; no vector for unknown words or stop words alone', () => {
  const v = vector('Every service logs in JSON');
  assert.ok(Math.abs(cosine(v, v) - 1) < 1e-5);
  assert.equal(textVector(words('xyzzyq plughh')), undefined);
  assert.equal(textVector(words('the and of')), undefined);
  assert.equal(textVector([]), undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wholePool } from './pool.js';
import { buildPoolIndex, placeOfRow } from './pool-index.js';
import { refreshPoolIndex } from './pool-refresh.js';
import { poolCosines, poolLexicalScores } from './pool-scores.js';
import type { RankedItem } from './search-cache.js';
import { rankCandidates, words } from './search-ranking.js';
import { cosine, tableSize, textVector, wordRow } from './word-vectors.js';

const VOCABULARY =
  'deploy deploying deployment deployed research researching researcher agency adoption canary rollback café crème friday friends painting painted paints swim swimming pottery camping the and'.split(
    ' ',
  );

/** A deterministic pseudo-random pool: entries of mixed kinds whose words come from a small vocabulary. */
function pool(size: number): RankedItem[] {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const text = (n: number) =>
    Array.from({ length: n }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]).join(' ');
  return Array.from({ length: size }, (_, i) => ({
    id: `e${i}`,
    kind: i % 3 === 0 ? 'conversation' : 'note',
    version: 1,
    updatedAt: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    words: { title: words(text(1 + (i % 3))), tags: words(text(i % 2)), content: words(text(3 + (i % 17))) },
  }));
}

test('the pool index scores every entry as rankCandidates scores the whole pool, to the last bit', () => {
  const items = pool(300);
  const index = buildPoolIndex(
    items,
    items.map(() => undefined),
  );
  // Terms whose stem's prefix range and light-stem range overlap (deploying, researching), and one term twice.
  for (const terms of [
    ['deploying'],
    ['research', 'adoption'],
    ['researching', 'deployed', 'paint'],
    ['cafe', 'friday', 'paints'],
    ['zzz'],
    ['swimming', 'pottery', 'camping', 'canary', 'swimming'],
    [],
  ]) {
    const expected = new Map(rankCandidates(items, terms, 1000, items.length).map((r) => [r.id, r.score]));
    const scores = poolLexicalScores(wholePool(index), terms, 1000);
    // Into a column a previous search filled (rankPool's scratch): the same scores.
    assert.deepEqual(
      poolLexicalScores(wholePool(index), terms, 1000, new Float64Array(items.length).fill(7)),
      scores,
      `${terms.join(' ')} into a used column`,
    );
    items.forEach((item, i) => {
      const want = expected.get(item.id) ?? 0;
      assert.equal(scores[i], want, `${terms.join(' ')}: ${item.id}`);
    });
    if (terms.length && terms[0] !== 'zzz') assert.ok(expected.size > 0, 'the terms match something');
  }
});

test("the pool index's cosines are each entry's cosine to the query, and none for an entry without a vector", () => {
  const items = pool(50);
  items.push({
    id: 'novector',
    kind: 'note',
    version: 1,
    updatedAt: '2026-01-01T00:00:00.000Z',
    words: { title: ['xyzzyq'], tags: [], content: [] },
  });
  const index = buildPoolIndex(
    items,
    items.map(() => undefined),
  );
  const query = textVector(words('a painting class with friends'))!;
  const cosines = poolCosines(wholePool(index), query);
  assert.deepEqual(
    poolCosines(wholePool(index), query, new Float64Array(items.length).fill(7)),
    cosines,
    'into a used column',
  );
  items.slice(0, 50).forEach((item, i) => {
    const own = textVector(
      item.kind === 'conversation'
        ? item.words.content
        : [...item.words.title, ...item.words.tags, ...item.words.content],
    );
    // Entry vectors are held as 8-bit integers: within 0.01 of the float cosine.
    if (own)
      assert.ok(
        Math.abs(cosines[i]! - cosine(query, own)) < 0.01,
        `${item.id}: ${cosines[i]} vs ${cosine(query, own)}`,
      );
    else assert.ok(Number.isNaN(cosines[i]!), item.id);
  });
  assert.ok(Number.isNaN(cosines[50]!));
});

test("the pool index finds each word by the word's row, and none for a row no entry uses", () => {
  // Pools of no entry, of one word with a row (the smallest table), of one entry, and of many.
  const oneWord: RankedItem = {
    id: 'one',
    kind: 'note',
    version: 1,
    updatedAt: '2026-01-01T00:00:00.000Z',
    words: { title: [], tags: [], content: ['pottery', 'the'] },
  };
  for (const items of [pool(0), [oneWord], pool(1), pool(300)]) {
    const size = items.length;
    const index = buildPoolIndex(
      items,
      items.map(() => undefined),
    );
    const byRow = new Map(index.vocabulary.flatMap((word, k) => (wordRow(word) >= 0 ? [[wordRow(word), k]] : [])));
    for (let row = 0; row < tableSize(); row++)
      assert.equal(placeOfRow(index.wordsByRow, row), byRow.get(row) ?? -1, `row ${row}`);
    // Each word's postings are its items, in order, each once.
    index.vocabulary.forEach((word, k) => {
      const at = [...index.postingItems.subarray(index.postingStarts[k], index.postingStarts[k + 1])];
      const expected = items.flatMap((item, i) =>
        Object.values(item.words).some((list: string[]) => list.includes(word)) ? [i] : [],
      );
      assert.deepEqual(at, expected, word);
    });
    if (size > 1) assert.ok(byRow.size > 10, `${byRow.size} rows`);
  }
});

test('a refreshed pool index is the index a build makes of the same items, whatever was added, changed, removed or moved', () => {
  const before = pool(200);
  const old = buildPoolIndex(
    before,
    before.map(() => undefined),
  );
  const added = pool(230)
    .slice(200)
    .map((item) => ({
      ...item,
      id: `new-${item.id}`,
      words: { ...item.words, content: [...item.words.content, 'zeppelin'] },
    }));
  const changed = {
    ...before[5]!,
    version: 2,
    words: { title: ['rollback'], tags: [], content: ['canary', 'rollback', 'rollback'] },
  };
  // New entries first (the newest), one changed, every seventh removed, and two kept ones swapped.
  const kept = before.filter((_, i) => i % 7 !== 3 && i !== 5);
  [kept[10], kept[11]] = [kept[11]!, kept[10]!];
  const after = [...added, changed, ...kept];
  const refreshed = refreshPoolIndex(
    old,
    after,
    after.map(() => undefined),
  );
  const built = buildPoolIndex(
    after,
    after.map(() => undefined),
  );
  for (const field of [
    'vocabulary',
    'rows',
    'postingStarts',
    'postingItems',
    'postingWeights',
    'lengths',
    'vectors',
    'scales',
  ] as const)
    assert.deepEqual(refreshed[field], built[field], field);
  for (const terms of [['zeppelin'], ['rollback', 'canary'], ['deploying', 'friday']])
    assert.deepEqual(
      poolLexicalScores(wholePool(refreshed), terms, 500),
      poolLexicalScores(wholePool(built), terms, 500),
      terms.join(' '),
    );
  assert.ok(
    poolLexicalScores(wholePool(refreshed), ['zeppelin'], 500).filter((s) => s > 0).length === 30,
    'every added entry is found',
  );
});

test('a pool with new entries in front and every old one kept (the pool after saves) is refreshed to the index a build makes', () => {
  const before = pool(300);
  let index = buildPoolIndex(
    before,
    before.map(() => undefined),
  );
  let items = before;
  // One save at a time, then three at once; new words (first and last in the vocabulary too), known words, and an entry without words.
  const saves: RankedItem[][] = [
    [
      {
        ...before[0]!,
        id: 'new-1',
        words: { title: ['aardvark'], tags: [], content: ['canary', 'zeppelin', 'canary'] },
      },
    ],
    [{ ...before[1]!, id: 'new-2', words: { title: [], tags: ['deploy'], content: ['rollback', 'zzz', 'friends'] } }],
    [
      { ...before[2]!, id: 'new-3', words: { title: ['painting'], tags: [], content: ['swim', 'café', 'quokka'] } },
      { ...before[3]!, id: 'new-4', words: { title: [], tags: [], content: [] } },
      {
        ...before[4]!,
        id: 'new-5',
        kind: 'conversation',
        words: { title: ['quokka'], tags: ['the'], content: ['zeppelin'] },
      },
    ],
  ];
  for (const saved of saves) {
    items = [...saved, ...items];
    index = refreshPoolIndex(
      index,
      items,
      items.map(() => undefined),
    );
    const built = buildPoolIndex(
      items,
      items.map(() => undefined),
    );
    for (const field of [
      'vocabulary',
      'rows',
      'postingStarts',
      'postingItems',
      'postingWeights',
      'lengths',
      'vectors',
      'scales',
    ] as const)
      assert.deepEqual(index[field], built[field], `${field} after ${saved.map((s) => s.id).join(', ')}`);
    for (const terms of [['zeppelin'], ['rollback', 'canary'], ['quokka', 'aardvark'], ['deploying', 'friday']])
      assert.deepEqual(
        poolLexicalScores(wholePool(index), terms, 500),
        poolLexicalScores(wholePool(built), terms, 500),
        terms.join(' '),
      );
  }
  assert.equal(index.items.length, 305);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { poolFacetScores } from './facet-scores.js';
import type { TurnPlace } from './hybrid-ranking.js';
import { mergedIndex, RECENT_LIMIT, wholePool, withNewest } from './pool.js';
import { buildPoolIndex } from './pool-index.js';
import { DUPLICATE_TERMS, poolCosines, poolDuplicateCandidates, poolLexicalScores } from './pool-scores.js';
import { entryWords, type RankedItem } from './search-cache.js';
import { lightStem, titleWeight, WEIGHTS, words } from './search-ranking.js';
import { searchTerms } from './search-terms.js';

const VOCABULARY =
  'deploy deploying deployment deployable paintbrush canary rollback friday painting painted paints swim swimming pottery camping travel trip journey kids children lake beach the and'.split(
    ' ',
  );

/** Deterministic entries, newest first: notes, and captured turns of three sessions said by two speakers. */
function entries(size: number, seed: number, from = 0): { item: RankedItem; place: TurnPlace | undefined }[] {
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const text = (n: number) =>
    Array.from({ length: n }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]).join(' ');
  return Array.from({ length: size }, (_, k) => {
    const i = from + size - 1 - k;
    const id = `e-${i}`;
    const turn = i % 2 === 0;
    const item = {
      id,
      kind: turn ? 'conversation' : 'note',
      version: 1,
      updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      words: entryWords({
        title: text(i % 3),
        content: text(2 + (i % 11)),
        tags: text(i % 2) ? [text(1)] : [],
      }),
      datapackId: i % 5 === 0 ? 'dp-b' : 'dp-a',
    };
    const place = turn
      ? { session: `s${i % 3}`, at: item.updatedAt, speaker: [i % 4 === 0 ? 'melanie' : 'caroline'] }
      : undefined;
    return { item, place };
  });
}

/**
 * The near-duplicate check's candidates worked out the long way: the text's terms the entries hold
 * as words, the rarest DUPLICATE_TERMS of them (by how many times their words occur), and Okapi
 * BM25 over those of every entry, the best `limit` (of the datapack when one is named).
 */
function expectedCandidates(
  all: { item: RankedItem }[],
  terms: string[],
  limit: number,
  only?: string,
  docCount = 900,
): { id: string; score: number }[] {
  const items = all.map((e) => e.item);
  // Each entry's words stemmed once and each term's document frequency counted once: still the long
  // way (every word of every entry), but not once per entry per term, which made this file take minutes.
  const stemmed = items.map((item) => {
    const title = item.words.title.map(lightStem);
    const tags = item.words.tags.map(lightStem);
    const content = item.words.content.map(lightStem);
    return {
      item,
      fields: [...item.words.title, ...item.words.tags, ...item.words.content],
      stems: [...title, ...tags, ...content],
      title,
      tags,
      content,
    };
  });
  const occurrences = (stem: string) =>
    stemmed.reduce((n, e) => n + new Set(e.fields.filter((_, j) => e.stems[j] === stem)).size, 0);
  const rarest = terms
    .map((t) => lightStem(t))
    .map((stem, k) => ({ stem, k, n: occurrences(stem) }))
    .filter((t) => t.n > 0)
    .sort((x, y) => x.n - y.n || x.k - y.k)
    .slice(0, DUPLICATE_TERMS);
  const count = (stems: string[], stem: string) => stems.filter((w) => w === stem).length;
  const tf = (e: (typeof stemmed)[number], stem: string) =>
    titleWeight(e.item.kind) * count(e.title, stem) +
    WEIGHTS.tags * count(e.tags, stem) +
    WEIGHTS.content * count(e.content, stem);
  const avg = stemmed.reduce((sum, e) => sum + e.fields.length, 0) / items.length;
  const n = Math.max(docCount, items.length);
  const idfs = rarest.map(({ stem }) => {
    const df = stemmed.filter((other) => tf(other, stem) > 0).length;
    return { stem, idf: Math.max(Math.log((n - df + 0.5) / (df + 0.5)), 1e-6) };
  });
  const scored = stemmed.map((e) => {
    let score = 0;
    for (const { stem, idf } of idfs) {
      const f = tf(e, stem);
      if (f > 0) score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * e.fields.length) / avg));
    }
    return { item: e.item, score };
  });
  return scored
    .filter(({ item, score }) => score > 0 && (!only || item.datapackId === only))
    .sort(
      (x, y) =>
        y.score - x.score ||
        (x.item.updatedAt < y.item.updatedAt
          ? 1
          : x.item.updatedAt > y.item.updatedAt
            ? -1
            : x.item.id < y.item.id
              ? -1
              : 1),
    )
    .slice(0, limit)
    .map(({ item, score }) => ({ id: item.id, score }));
}

/** The ids in order, and each score to the last few bits (the sums run in another order). */
function assertSameCandidates(
  actual: { id: string; score: number }[],
  expected: { id: string; score: number }[],
  label: string,
): void {
  assert.deepEqual(
    actual.map((r) => r.id),
    expected.map((r) => r.id),
    label,
  );
  for (const [k, r] of actual.entries())
    assert.ok(
      Math.abs(r.score - expected[k]!.score) < 1e-9,
      `${label}: ${r.id} ${r.score} against ${expected[k]!.score}`,
    );
}

const QUERIES = [
  'deploying on friday',
  'painting with the kids',
  'canary rollback deployment',
  'a trip to the lake',
  'swim',
  'zzz',
  'deploying canary rollback friday painting swim pottery camping travel trip journey kids children lake beach',
];

test('a pool with entries saved into it ranks exactly as one index of all its entries, and merges into that index', () => {
  const old = entries(200, 11);
  let pool = wholePool(
    buildPoolIndex(
      old.map((e) => e.item),
      old.map((e) => e.place),
    ),
  );
  const saved = entries(RECENT_LIMIT + 5, 23, 200);
  let all = old;
  for (let s = saved.length - 1; s >= 0; s--) {
    pool = withNewest(pool, saved[s]!.item, saved[s]!.place);
    all = [saved[s]!, ...all];
    const built = wholePool(
      buildPoolIndex(
        all.map((e) => e.item),
        all.map((e) => e.place),
      ),
    );
    const label = `after ${all.length - old.length} saves`;
    assert.deepEqual(
      pool.items.map((i) => i.id),
      built.items.map((i) => i.id),
      label,
    );
    assert.equal(pool.size, built.items.length, label);
    assert.deepEqual(pool.sessions, built.sessions, `${label}: sessions`);
    assert.deepEqual(pool.speakers, built.speakers, `${label}: speakers`);
    assert.equal(pool.avgLength, built.avgLength, label);
    for (const query of QUERIES) {
      const terms = words(query);
      assert.deepEqual(poolLexicalScores(pool, terms, 900), poolLexicalScores(built, terms, 900), `${label}: ${query}`);
      for (const only of [undefined, 'dp-b'])
        for (const limit of [5, 1000])
          assertSameCandidates(
            poolDuplicateCandidates(pool, terms, 900, limit, only),
            expectedCandidates(all, terms, limit, only),
            `${label}: ${query} ${only ?? ''} ${limit}`,
          );
      assert.deepEqual(poolFacetScores(pool, terms), poolFacetScores(built, terms), `${label}: ${query}`);
    }
    const vector = poolCosines(built, new Float32Array(100).fill(0.1));
    assert.deepEqual(poolCosines(pool, new Float32Array(100).fill(0.1)), vector, label);
    const merged = mergedIndex(pool);
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
      assert.deepEqual(merged[field], built.main[field], `${label}: merged ${field}`);
  }
  // The recent entries were merged into the main index once RECENT_LIMIT were held, then gathered again.
  assert.equal(pool.recentItems.length, saved.length - RECENT_LIMIT);
  assert.equal(pool.main.items.length, old.length + RECENT_LIMIT);
  assert.ok(
    poolLexicalScores(pool, ['canary'], 900).some((score) => score > 0),
    'the terms match something',
  );
});

test('the near-duplicate check ranks by the rarest terms: the commonest of a long text, in every entry, are left out', () => {
  const all = Array.from({ length: 300 }, (_, k) => {
    const i = 299 - k;
    const id = `d-${i}`;
    // Every entry is dated (pm, 2023); some hold rarer words.
    const rare = [
      i % 7 === 0 ? 'canary rollback' : '',
      i % 11 === 0 ? 'canary' : '',
      i % 100 === 3 ? 'okapi' : '',
    ].join(' ');
    const content = `2023 at 4 pm ${VOCABULARY[i % VOCABULARY.length]} ${rare}`;
    const item: RankedItem = {
      id,
      kind: 'note',
      version: 1,
      updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      words: entryWords({ title: 'Note', content, tags: [] }),
      datapackId: 'dp-a',
    };
    return { item, place: undefined };
  });
  const pool = wholePool(
    buildPoolIndex(
      all.map((e) => e.item),
      all.map((e) => e.place),
    ),
  );
  const text = 'Note: deploy the canary rollback on friday with the kids at the lake, okapi pottery camping, 4 pm 2023';
  const terms = searchTerms(text);
  assert.ok(terms.length > DUPLICATE_TERMS, `${terms.length} terms`);
  for (const limit of [5, 300]) {
    const found = poolDuplicateCandidates(pool, terms, 300, limit);
    assertSameCandidates(found, expectedCandidates(all, terms, limit, undefined, 300), `limit ${limit}`);
    // "note", "pm" and "2023" are in every entry: an entry holding no rarer term is no candidate.
    assert.ok(found.length < all.length, `${found.length} of ${all.length}`);
  }
  assert.deepEqual(
    poolDuplicateCandidates(pool, searchTerms('zebra giraffe'), 300, 5),
    [],
    'words no entry holds find nothing',
  );
});

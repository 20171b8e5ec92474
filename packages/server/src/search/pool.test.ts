import assert from 'node:assert/strict';
import { test } from 'node:test';
import { poolFacetScores } from './facet-scores.js';
import type { TurnPlace } from './hybrid-ranking.js';
import { mergedIndex, RECENT_LIMIT, wholePool, withNewest } from './pool.js';
import { buildPoolIndex } from './pool-index.js';
import { poolCosines, poolLexicalScores, poolLexicalTop } from './pool-scores.js';
import { entryWords, type RankedItem } from './search-cache.js';
import { lightStem, rankCandidates, words } from './search-ranking.js';

const VOCABULARY =
  'deploy deploying deployment deployable paintbrush canary rollback friday painting painted paints swim swimming pottery camping travel trip journey kids children lake beach the and'.split(' ');

/** Deterministic entries, newest first: notes, and captured turns of three sessions said by two speakers. */
function entries(size: number, seed: number, from = 0): { item: RankedItem; place: TurnPlace | undefined }[] {
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const text = (n: number) => Array.from({ length: n }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]).join(' ');
  return Array.from({ length: size }, (_, k) => {
    const i = from + size - 1 - k;
    const id = `e-${i}`;
    const turn = i % 2 === 0;
    const item = {
      id,
      kind: turn ? 'conversation' : 'note',
      version: 1,
      updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      words: entryWords({ id, version: 1, title: text(i % 3), content: text(2 + (i % 11)), tags: text(i % 2) ? [text(1)] : [] }),
      datapackId: i % 5 === 0 ? 'dp-b' : 'dp-a',
    };
    const place = turn ? { session: `s${i % 3}`, at: item.updatedAt, speaker: [i % 4 === 0 ? 'melanie' : 'caroline'] } : undefined;
    return { item, place };
  });
}

/**
 * The near-duplicate check's answer worked out the long way: every entry ranked, then those that
 * hold a term as a word (its light stem), of the datapack when one is named, the best `limit`.
 */
function expectedTop(all: { item: RankedItem }[], terms: string[], limit: number, only?: string): { id: string; score: number }[] {
  const items = all.map((e) => e.item);
  const stems = terms.map((t) => lightStem(t));
  const held = new Set(items.filter((item) => [...item.words.title, ...item.words.tags, ...item.words.content].some((w) => stems.includes(lightStem(w)))).map((item) => item.id));
  const inPack = new Set(items.filter((item) => !only || item.datapackId === only).map((item) => item.id));
  return rankCandidates(items, terms, 900, items.length)
    .filter((r) => held.has(r.id) && inPack.has(r.id))
    .slice(0, limit);
}

const QUERIES = ['deploying on friday', 'painting with the kids', 'canary rollback deployment', 'a trip to the lake', 'swim', 'zzz'];

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
    assert.deepEqual(pool.sessions, built.sessions, `${label}: sessions`);
    assert.deepEqual(pool.speakers, built.speakers, `${label}: speakers`);
    assert.equal(pool.avgLength, built.avgLength, label);
    for (const query of QUERIES) {
      const terms = words(query);
      assert.deepEqual(poolLexicalScores(pool, terms, 900), poolLexicalScores(built, terms, 900), `${label}: ${query}`);
      for (const only of [undefined, 'dp-b'])
        for (const limit of [5, 1000]) assert.deepEqual(poolLexicalTop(pool, terms, 900, limit, only), expectedTop(all, terms, limit, only), `${label}: ${query} ${only ?? ''} ${limit}`);
      assert.deepEqual(poolFacetScores(pool, terms), poolFacetScores(built, terms), `${label}: ${query}`);
    }
    const vector = poolCosines(built, new Float32Array(100).fill(0.1));
    assert.deepEqual(poolCosines(pool, new Float32Array(100).fill(0.1)), vector, label);
    const merged = mergedIndex(pool);
    for (const field of ['vocabulary', 'rows', 'postingStarts', 'postingItems', 'postingWeights', 'lengths', 'vectors', 'scales'] as const)
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

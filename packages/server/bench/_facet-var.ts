import { poolFacetScores } from '../src/search/facet-scores.js';
import { type Pool, wholePool } from '../src/search/pool.js';
import { buildPoolIndex, placeOfRow } from '../src/search/pool-index.js';
import { segmentsOf } from '../src/search/pool-scores.js';
import { entryWords, type RankedItem } from '../src/search/search-cache.js';
import { words } from '../src/search/search-ranking.js';
import { neighboursOf } from '../src/search/word-neighbours.js';
import { rowWeight, wordRow } from '../src/search/word-vectors.js';
import { loadQuestions, loadTurns } from './locomo.js';

const n = Number(process.argv[2] ?? 20000);
const data = '/work/shared/data/locomo-dev.json';
const turns = await loadTurns(data);
const questions = (await loadQuestions(data)).slice(0, 400).map(words);
const items: RankedItem[] = Array.from({ length: n }, (_, i) => {
  const turn = turns[i % turns.length]!;
  const entry = { id: `e${i}`, version: 1, title: turn.title, content: `${turn.content} (${i})`, tags: [] };
  return { id: entry.id, kind: 'note', version: 1, updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n - i)).toISOString(), words: entryWords(entry) };
});
const pool = wholePool(
  buildPoolIndex(
    items,
    items.map(() => undefined),
  ),
);
let reached8 = new Uint8Array(0);
function variant(pool: Pool, queryWords: readonly string[], scores: Float64Array): Float64Array {
  const n = pool.size;
  scores.fill(0);
  const rows = [...new Set(queryWords.map(wordRow).filter((r) => r >= 100))].slice(0, 12);
  if (rows.length === 0 || n === 0) return scores;
  if (reached8.length < n) reached8 = new Uint8Array(n);
  const reached = reached8;
  reached.fill(0, 0, n);
  const weights = rows.map(rowWeight);
  const total = weights.reduce((s, w) => s + w, 0);
  const segments = segmentsOf(pool);
  for (let f = 0; f < rows.length; f++) {
    const stamp = f + 1;
    const w = weights[f]! / total / 254;
    const close = neighboursOf(rows[f]!);
    for (const [segment, offset] of segments) {
      const { postingStarts, postingItems, wordsByRow } = segment;
      for (let k = -1; k < close.rows.length; k++) {
        const word = placeOfRow(wordsByRow, k < 0 ? rows[f]! : close.rows[k]!);
        if (word < 0) continue;
        const score = w * ((k < 0 ? 255 : close.bytes[k]!) - 1);
        const end = postingStarts[word + 1]!;
        for (let p = postingStarts[word]!; p < end; p++) {
          const i = offset + postingItems[p]!;
          scores[i] = scores[i]! + score * ((reached[i]! - stamp) >>> 31);
          reached[i] = stamp;
        }
      }
    }
  }
  return scores;
}
let best8 = new Uint8Array(0);
function variant2(pool: Pool, queryWords: readonly string[], scores: Float64Array): Float64Array {
  const n = pool.size;
  scores.fill(0);
  const rows = [...new Set(queryWords.map(wordRow).filter((r) => r >= 100))].slice(0, 12);
  if (rows.length === 0 || n === 0) return scores;
  if (best8.length < n) best8 = new Uint8Array(n);
  const best = best8;
  const weights = rows.map(rowWeight);
  const total = weights.reduce((s, w) => s + w, 0);
  const segments = segmentsOf(pool);
  for (let f = 0; f < rows.length; f++) {
    const w = weights[f]! / total / 254;
    const close = neighboursOf(rows[f]!);
    for (const [segment, offset] of segments) {
      const { postingStarts, postingItems, wordsByRow } = segment;
      for (let k = -1; k < close.rows.length; k++) {
        const word = placeOfRow(wordsByRow, k < 0 ? rows[f]! : close.rows[k]!);
        if (word < 0) continue;
        const byte = k < 0 ? 255 : close.bytes[k]!;
        const end = postingStarts[word + 1]!;
        for (let p = postingStarts[word]!; p < end; p++) {
          const i = offset + postingItems[p]!;
          if (best[i]! < byte) best[i] = byte;
        }
      }
    }
    for (let i = 0; i < n; i++) {
      const b = best[i]!;
      if (b > 1) {
        scores[i] = scores[i]! + w * (b - 1);
        best[i] = 0;
      }
    }
  }
  return scores;
}
const a = new Float64Array(n),
  b = new Float64Array(n);
for (const q of questions) {
  poolFacetScores(pool, q, a);
  variant2(pool, q, b);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) throw new Error('differs ' + i);
}
for (let round = 0; round < 4; round++) {
  let t = performance.now();
  for (const q of questions) poolFacetScores(pool, q, a);
  const base = ((performance.now() - t) / questions.length) * 1000;
  t = performance.now();
  for (const q of questions) variant(pool, q, b);
  const v = ((performance.now() - t) / questions.length) * 1000;
  t = performance.now();
  for (const q of questions) variant2(pool, q, b);
  const v2 = ((performance.now() - t) / questions.length) * 1000;
  console.log(`v2 ${v2.toFixed(0)}`);
  console.log(`current ${base.toFixed(0)} µs, variant ${v.toFixed(0)} µs`);
}

/**
 * Where ranking one pool's entries goes, part by part: a pool of `--entries` LoCoMo turns (as a
 * heavy user's notes), then each of the first 400 LoCoMo questions ranked as search ranks a pool
 * (rank-query.ts, rankPool), each part timed alone; three rounds, the last printed.
 *
 *   node --import tsx bench/ranking-parts.ts [--entries 20000] [--data <locomo.json>]
 */
import { parseArgs } from 'node:util';
import { loadQuestions, loadTurns } from '../measure/locomo.js';
import { poolFacetScores } from '../src/search/facet-scores.js';
import { fuseColumns, speakerBoosts, speakersNamed } from '../src/search/hybrid-ranking.js';
import { wholePool } from '../src/search/pool.js';
import { buildPoolIndex } from '../src/search/pool-index.js';
import { poolCosines, poolLexicalScores, scratchColumns } from '../src/search/pool-scores.js';
import { entryWords, type RankedItem } from '../src/search/search-cache.js';
import { words } from '../src/search/search-ranking.js';
import { searchTerms } from '../src/search/search-terms.js';
import { textVector } from '../src/search/word-vectors.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '20000' },
    data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
  },
});
const n = Number(values.entries);
const turns = await loadTurns(values.data);
const questions = (await loadQuestions(values.data)).slice(0, 400);
const items: RankedItem[] = Array.from({ length: n }, (_, i) => {
  const turn = turns[i % turns.length]!;
  const entry = { id: `e${i}`, version: 1, title: turn.title, content: `${turn.content} (${i})`, tags: [] };
  return {
    id: entry.id,
    kind: 'note',
    version: 1,
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n - i)).toISOString(),
    words: entryWords(entry),
  };
});
const pool = wholePool(
  buildPoolIndex(
    items,
    items.map(() => undefined),
  ),
);
const spent = { lexical: 0, cosines: 0, facets: 0, fusion: 0 };
const timed = <T>(part: keyof typeof spent, run: () => T): T => {
  const start = performance.now();
  const result = run();
  spent[part] += performance.now() - start;
  return result;
};
for (let round = 0; round < 3; round++) {
  for (const part of Object.keys(spent) as (keyof typeof spent)[]) spent[part] = 0;
  for (const question of questions) {
    const queryWords = words(question);
    const speakers = speakersNamed(pool.speakers.names, queryWords);
    const topicWords = queryWords.filter((w) => !speakers.has(w));
    const columns = scratchColumns(pool.size);
    const lexical = timed('lexical', () => poolLexicalScores(pool, searchTerms(question), n, columns.lexical));
    const vector = textVector(topicWords);
    const semantic = vector && timed('cosines', () => poolCosines(pool, vector, columns.semantic));
    const facet = timed('facets', () => poolFacetScores(pool, topicWords, columns.facet));
    timed('fusion', () =>
      fuseColumns(pool.items, { lexical, semantic, facet }, speakerBoosts(pool.speakers, speakers), 10, pool.sessions),
    );
  }
}
const perSearch = (ms: number) => `${Math.round((1000 * ms) / questions.length)} µs`;
const total = Object.values(spent).reduce((a, b) => a + b, 0);
console.log(
  `${n} entries, ${questions.length} questions, per search: ${Object.entries(spent)
    .map(([part, ms]) => `${part} ${perSearch(ms)}`)
    .join(', ')}; all ${perSearch(total)}`,
);

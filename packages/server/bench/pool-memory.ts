/**
 * What the pool cache holds per entry: `--pools` pools of `--entries` LoCoMo turns each are built
 * as search builds them (words split, vectors looked up, indexed) and kept, and the heap and
 * ArrayBuffer bytes they add are compared with what the cache's bound counts for them
 * (poolIndexBytes). Run with --expose-gc so that the figures are live bytes, not garbage.
 *
 *   node --expose-gc --import tsx bench/pool-memory.ts [--pools 200] [--entries 1000] [--data <locomo.json>]
 */
import { parseArgs } from 'node:util';
import { loadTurns } from '../measure/locomo.js';
import { buildPoolIndex, poolIndexBytes } from '../src/search/pool-index.js';
import { entryWords } from '../src/search/search-cache.js';

const { values } = parseArgs({
  options: {
    pools: { type: 'string', default: '200' },
    entries: { type: 'string', default: '1000' },
    data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
  },
});
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const turns = await loadTurns(values.data);
const perPool = Number(values.entries);
const live = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const held: unknown[] = [];
const before = live();
let counted = 0;
// The word and vector caches fill up with the first 20,000 entries; the pools after them show what a pool adds alone.
const first = Math.min(30, Number(values.pools) - 1);
let afterFirst = 0;
let countedFirst = 0;
for (let p = 0; p < Number(values.pools); p++) {
  if (p === first) {
    afterFirst = live();
    countedFirst = counted;
  }
  const items = Array.from({ length: perPool }, (_, k) => {
    const turn = turns[(p * 7919 + k) % turns.length]!;
    const id = `${p.toString(16).padStart(8, '0')}-0000-4000-8000-${k.toString(16).padStart(12, '0')}`;
    const entry = { id, version: 1, title: turn.title, content: turn.content, tags: turn.tags };
    return {
      id,
      kind: turn.kind,
      version: 1,
      updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, k)).toISOString(),
      words: entryWords(entry),
      datapackId: `pack-${p}`,
    };
  });
  const index = buildPoolIndex(
    items,
    items.map(() => undefined),
  );
  counted += poolIndexBytes(index);
  held.push(index);
}
const entries = Number(values.pools) * perPool;
const rest = (Number(values.pools) - first) * perPool;
const marginal = live() - afterFirst;
console.log(
  `the last ${Number(values.pools) - first} pools alone: ${Math.round(marginal / rest)} B an entry live, ${Math.round((counted - countedFirst) / rest)} B counted`,
);
const added = live() - before;
console.log(
  `${values.pools} pools × ${perPool} entries: ${(added / 2 ** 20).toFixed(0)} MB live (${Math.round(added / entries)} B an entry); the cache counts ${(counted / 2 ** 20).toFixed(0)} MB (${Math.round(counted / entries)} B an entry)`,
);

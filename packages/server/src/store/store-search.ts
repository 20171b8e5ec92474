import {
  type CandidateRow,
  type QueryEmbedder,
  type SearchSource,
  type TurnPlace,
  takeIntoPools,
} from '../search/index.js';
import { loadEmbeddings } from './embedding-queries.js';
import { parseTags, toEntry } from './row-mappers.js';
import type { StoreContext } from './store-context.js';
import type { Entry } from './types.js';

/** The store as search reads it (search/search-source.ts): its rows, never its connection. */
export interface SearchingStore extends StoreContext {
  readonly semanticSearch: boolean;
  readonly embedder: QueryEmbedder | undefined;
}

/** Answers search's reads from this store's tables; `searchCandidates` is the dialect's full-text index. */
export function searchSource(s: SearchingStore, searchCandidates: SearchSource['searchCandidates']): SearchSource {
  return {
    get cache() {
      return s.searchCache;
    },
    get semanticSearch() {
      return s.semanticSearch;
    },
    get embedder() {
      return s.embedder;
    },
    entriesState: (datapackIds) => entriesState(s, datapackIds),
    countLive: (datapackIds, kinds) => countLive(s, datapackIds, kinds),
    newestEntries: (datapackIds, kinds, max) => newestEntries(s, datapackIds, kinds, max),
    searchCandidates,
    entryTexts: async (ids) => (await s.hot.entryTexts(ids)).map((r) => ({ ...r, tags: parseTags(r.tags) })),
    turnRows: (entryIds) => s.hot.turnPlaces(entryIds),
    loadEmbeddings: (model, entryIds) => loadEmbeddings(s, model, entryIds),
    entriesByIds: async (ids) => (await s.hot.entriesByIds(ids)).map(toEntry),
  };
}

/** After this instance stored a new live entry, the pools it holds over the entry's datapack take it in when nothing else changed (search/saved-into-pools.ts); a failure leaves them to their next search. */
export async function takeIntoHeldPools(s: StoreContext, entry: Entry, place?: TurnPlace | null): Promise<void> {
  await takeIntoPools(s.searchCache, entry, (ids) => entriesState(s, ids), place).catch(() => {});
}

/**
 * How many live entries these datapacks hold, and a signature that changes with any change to
 * their entries: read from the datapacks' rows (kept by triggers), so it costs the same however
 * many entries the caller has.
 */
export async function entriesState(
  s: StoreContext,
  datapackIds: string[],
): Promise<{ count: number; signature: string }> {
  const [row] = await s.hot.datapacksState(datapackIds);
  if (!row) throw new Error('a sum over datapacks answered no row');
  const count = Number(row.n ?? 0);
  return { count, signature: `${count}|r${row.revision ?? 0}` };
}

/** How many live entries of these kinds these datapacks hold (counted: each datapack keeps only its total). */
async function countLive(s: StoreContext, datapackIds: string[], kinds: string[]): Promise<number> {
  const row = await s.db
    .selectFrom('entry')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('datapack_id', 'in', datapackIds)
    .where('deleted_at', 'is', null)
    .where('kind', 'in', kinds)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The newest live entries of these datapacks (and kinds): what the semantic signal and conversation context cover. */
function newestEntries(
  s: StoreContext,
  datapackIds: string[],
  kinds: string[] | undefined,
  max: number,
): Promise<CandidateRow[]> {
  let q = s.db
    .selectFrom('entry')
    .select(['id', 'kind', 'version', 'updated_at', 'datapack_id'])
    .where('datapack_id', 'in', datapackIds)
    .where('deleted_at', 'is', null);
  if (kinds?.length) q = q.where('kind', 'in', kinds);
  return q.orderBy('updated_at', 'desc').orderBy('id').limit(max).execute();
}

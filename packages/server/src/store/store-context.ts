import type { Kysely } from 'kysely';
import type { SearchCache } from '../search/index.js';
import type { HotQueries } from './hot-queries.js';
import type { Database } from './schema.js';

/** What the query modules of every aggregate share (KyselyStore is one). */
export interface StoreContext {
  readonly db: Kysely<Database>;
  /** The queries of every request, compiled once (hot-queries.ts). */
  readonly hot: HotQueries;
  /** Told of every entry written, so that its new version gets a vector; absent without an embeddings provider. */
  readonly embedder: { notify(): void } | undefined;
  /** What search keeps of this store's entries between searches (its pools, hits, words and vectors). */
  readonly searchCache: SearchCache;
  /** Whether the dialect's error is a unique constraint refusing a row. */
  isUniqueViolation(error: unknown): boolean;
}

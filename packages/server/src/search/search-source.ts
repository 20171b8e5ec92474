import type { Entry } from '../store/types.js';
import type { SearchCache } from './search-cache.js';
import type { QueryEmbedder } from './semantic-scores.js';

/** A search candidate as the store finds it: enough to look up its words and break ties. */
export interface CandidateRow {
  id: string;
  kind: string;
  version: number;
  updated_at: string | Date;
  datapack_id?: string;
}

/** A captured turn's row: its session, when it was said and by whom. */
export interface TurnRow {
  entry_id: string;
  session_id: string | null;
  speaker: string | null;
  created_at: string | Date;
}

/**
 * What ranking asks of the store: the caller's candidate rows and what it needs to rank them.
 * Search never reads the database itself; the store answers these from its tables and indexes.
 */
export interface SearchSource {
  /** What search keeps of this store's entries between searches: this store's alone (two databases open in one process may share ids). */
  readonly cache: SearchCache;
  /** Hybrid ranking (word vectors, conversation context) on top of the lexical one. */
  readonly semanticSearch: boolean;
  /** The embeddings provider's vectors replace the word vectors when it is configured and answers. */
  readonly embedder: QueryEmbedder | undefined;
  /** How many live entries these datapacks hold, and a signature that changes with any change to them. */
  entriesState(datapackIds: string[]): Promise<{ count: number; signature: string }>;
  /** How many live entries of these kinds these datapacks hold. */
  countLive(datapackIds: string[], kinds: string[]): Promise<number>;
  /** The newest live entries of these datapacks (and kinds), newest first, at most `max`. */
  newestEntries(datapackIds: string[], kinds: string[] | undefined, max: number): Promise<CandidateRow[]>;
  /**
   * Live entries of these datapacks (and kinds) that match any of the terms, at most `max`, found by
   * the database's full-text index. With `prefixes` a term also matches the words its rough stem begins.
   */
  searchCandidates(
    datapackIds: string[],
    terms: string[],
    kinds: string[] | undefined,
    max: number,
    prefixes: boolean,
  ): Promise<CandidateRow[]>;
  /** The current text of these entries (at most 500 ids a call). */
  entryTexts(ids: string[]): Promise<Pick<Entry, 'id' | 'version' | 'title' | 'content' | 'tags'>[]>;
  /** The capture rows of these entries (at most 500 ids a call); an entry that is no turn has none. */
  turnRows(entryIds: string[]): Promise<TurnRow[]>;
  /** The vectors this model gave these entries, with the version each was made from. */
  loadEmbeddings(model: string, entryIds: string[]): Promise<Map<string, { version: number; vector: Float32Array }>>;
  /** These entries, as search returns them. */
  entriesByIds(ids: string[]): Promise<Entry[]>;
}

/** A time as ISO-8601 text (PostgreSQL's driver reads timestamptz as a Date). */
export function isoText(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : value;
}

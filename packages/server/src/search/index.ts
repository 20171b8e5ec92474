// Search's one door: the store hands rankQuery a SearchSource (the caller's candidate rows and
// what ranking reads); the other layers take search's text helpers from here, never from its files.
export type { TurnPlace } from './hybrid-ranking.js';
export { rankQuery } from './rank-query.js';
export { takeIntoPools } from './saved-into-pools.js';
export { SearchCache, speakerWords } from './search-cache.js';
export { CAPTURED_KIND, lightStem, termStem, words } from './search-ranking.js';
export type { CandidateRow, SearchSource, TurnRow } from './search-source.js';
export { isStopWord } from './search-terms.js';
export type { QueryEmbedder } from './semantic-scores.js';
export { cosine, textVector } from './word-vectors.js';

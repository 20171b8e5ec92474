import { termStem } from '../../search/index.js';

/**
 * The token the `pack` column of entry_fts holds for a datapack (see migration 0006): hex, so no
 * id can carry query syntax or collide after case folding, ending in a digit so the porter
 * stemmer leaves it whole.
 */
export function sqlitePackToken(datapackId: string): string {
  return `p${Buffer.from(datapackId, 'utf8').toString('hex')}0`;
}

/**
 * Builds an FTS5 MATCH expression: the caller's datapacks AND any of the terms, each term as a
 * phrase OR as a prefix of its rough stem. The porter tokenizer stems "deploying" to `deploi` but
 * "deployment" to `deploy`; the prefix `deplo*` finds both, as PostgreSQL's Snowball stemmer does.
 * Terms are letters and digits only. FTS5 intersects the datapack tokens' short lists with the
 * terms', so the work follows the caller's entries, not the whole index; a prefix does not: FTS5
 * merges every tenant's postings of the words it covers first. Without `prefixes`, phrases only.
 */
export function sqliteMatchExpression(terms: string[], datapackIds: string[], prefixes = true): string {
  const packs = datapackIds.map((id) => `"${sqlitePackToken(id)}"`).join(' OR ');
  const words = terms
    .map((term) => {
      const stem = prefixes && termStem(term);
      return stem ? `"${term}" OR ${stem}*` : `"${term}"`;
    })
    .join(' OR ');
  return `pack : (${packs}) AND (${words})`;
}

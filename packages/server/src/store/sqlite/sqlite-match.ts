const SUFFIXES = /(ations?|ments?|ings?|ness|ers?|ed|es|ly|s)$/;

/**
 * Builds an FTS5 MATCH expression: each term as a phrase OR as a prefix of its rough stem.
 * The porter tokenizer stems "deploying" to `deploi` but "deployment" to `deploy`; the prefix
 * `deplo*` finds both, as PostgreSQL's Snowball stemmer does. Terms are letters and digits only.
 */
export function sqliteMatchExpression(terms: string[]): string {
  return terms
    .map((term) => {
      const stem = term.replace(SUFFIXES, '').replace(/[yi]$/, '');
      return stem.length >= 4 && stem !== term ? `"${term}" OR ${stem}*` : `"${term}"`;
    })
    .join(' OR ');
}

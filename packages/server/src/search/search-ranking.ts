import type { Entry, SearchHit } from '../store/types.js';

/**
 * The one ranking both backends share: BM25 computed here over the candidates a backend found in
 * the caller's datapacks, with statistics (entry count, document frequency, average length) taken
 * from those datapacks only. So a user's results and their order depend on what that user can
 * read, never on other tenants' data, and SQLite and PostgreSQL rank alike.
 */

/** Field weights: a title hit counts most, then tags, then body text (as FTS5's bm25 weights did). */
export const WEIGHTS = { title: 8, tags: 4, content: 1 } as const;
/**
 * The kind capture stores turns as: their titles are a snippet of the text's first words, so they
 * weigh like text, not 8× (short greetings floated up); measured on dev, 0 loses R@25, 1 loses nothing.
 */
export const CAPTURED_KIND = 'conversation';
/** The idf floor (FTS5's own), so an entry that matches only very common terms still ranks above nothing. */
const MIN_IDF = 1e-6;
const K1 = 1.2;
const B = 0.75;
/** Rough English suffixes; a term also matches words that start with what is left (deploying → deploy*). */
const SUFFIXES = /(ations?|ments?|ings?|ness|ers?|ed|es|ly|s)$/;

/** The shortest prefix a term may widen to; shorter stems match too much. */
const MIN_STEM = 4;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at NUL on purpose: every ASCII character
const ASCII = /^[\x00-\x7f]*$/;

/** Lower-case words of a text, accents removed, as the full-text indexes see them. */
export function words(text: string): string[] {
  if (ASCII.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return (
    text
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** What a query term also matches as a prefix, or undefined when only the word itself matches. */
export function termStem(term: string): string | undefined {
  const stem = term.replace(SUFFIXES, '').replace(/[yi]$/, '');
  return stem.length >= MIN_STEM && stem !== term ? stem : undefined;
}

/** A word without its rough suffix: "researching" and "research" meet, as a stemmer makes them. */
export function lightStem(word: string): string {
  const stem = word.replace(SUFFIXES, '').replace(/[yie]$/, '');
  return stem.length >= 3 ? stem : word;
}

/** Which words one query term counts (see termMatchers). */
export interface Matcher {
  /** Matches a word whose light stem equals this… */
  same: string;
  /** …or, when set, a word starting with this. */
  prefix: string | undefined;
  accepts(word: string): boolean;
}

function matcher(same: string, prefix: string | undefined): Matcher {
  // A light stem is a prefix of its word, so most words are ruled out without stemming them.
  return {
    same,
    prefix,
    accepts: (w) => (w.startsWith(same) && lightStem(w) === same) || (prefix !== undefined && w.startsWith(prefix)),
  };
}

/**
 * A term with a stem counts twice, as the word and as the stem's prefix (the FTS5 query's two
 * phrases): a word that shares the stem is stronger evidence than one that only starts alike.
 */
export function termMatchers(terms: string[]): Matcher[] {
  return terms.flatMap((t): Matcher[] => {
    const word = words(t)[0] ?? t;
    const stem = termStem(word);
    return stem
      ? [matcher(lightStem(word), undefined), matcher(lightStem(stem), stem)]
      : [matcher(lightStem(word), undefined)];
  });
}

function count(words: string[], m: Matcher): number {
  let n = 0;
  for (const w of words) if (m.accepts(w)) n++;
  return n;
}

/** How much a title word counts for an entry of this kind. */
export function titleWeight(kind: string | undefined): number {
  return kind === CAPTURED_KIND ? WEIGHTS.content : WEIGHTS.title;
}

/**
 * Okapi BM25 with the statistics of the entries that matched: each matcher's document frequency,
 * the number of entries searched and the matching entries' average length. Returns the score of
 * one entry from its per-matcher term frequencies and its length.
 */
export function bm25(
  df: number[],
  n: number,
  avgLength: number,
): (tf: (matcher: number) => number, length: number) => number {
  const idf = bm25Idf(df, n);
  return (tf, length) => {
    const norm = bm25Norm(length, avgLength);
    let score = 0;
    for (let i = 0; i < idf.length; i++) score += bm25Term(idf[i]!, tf(i), norm);
    return score;
  };
}

/**
 * Okapi idf as FTS5 computes it: a term in half the entries or more (a speaker's name) says
 * almost nothing, so it gets only a token weight.
 */
export function bm25Idf(df: ArrayLike<number>, n: number): Float64Array {
  return Float64Array.from(df, (f) => bm25Idf1(f, n));
}

/** bm25Idf of one matcher, found in `df` of `n` entries. */
export function bm25Idf1(df: number, n: number): number {
  return Math.max(Math.log((n - df + 0.5) / (df + 0.5)), MIN_IDF);
}

/** The length normalization of an entry of `length` words. */
export function bm25Norm(length: number, avgLength: number): number {
  return K1 * (1 - B + (B * length) / avgLength);
}

/** One matcher's share of an entry's score, for its term frequency `tf` (0 adds nothing). */
export function bm25Term(idf: number, tf: number, norm: number): number {
  return tf > 0 ? (idf * tf * (K1 + 1)) / (tf + norm) : 0;
}

/** An entry's words by field. */
export interface EntryWords {
  title: string[];
  tags: string[];
  content: string[];
}

/** What ranking needs of a candidate. */
export interface RankItem {
  id: string;
  /** A captured turn's title is a snippet of its own text, so for `conversation` entries it weighs like text. */
  kind?: string;
  updatedAt: string;
  words: EntryWords;
}

/** rankCandidates over whole entries. */
export function rankEntries(entries: Entry[], terms: string[], docCount: number, limit: number): SearchHit[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  return rankCandidates(
    entries.map((e) => ({
      id: e.id,
      kind: e.kind,
      updatedAt: e.updatedAt,
      words: { title: words(e.title), tags: words(e.tags.join(' ')), content: words(e.content) },
    })),
    terms,
    docCount,
    limit,
  ).map((r) => ({ entry: byId.get(r.id)!, score: r.score }));
}

/**
 * Ranks candidates by BM25 over title, tags and content. `docCount` is the number of live entries
 * searched (the caller's datapacks, after the kind filter); candidates with no term score nothing
 * and are dropped. Ties go to the most recently changed entry, then the id, so order is stable.
 */
export function rankCandidates(
  candidates: RankItem[],
  terms: string[],
  docCount: number,
  limit: number,
): { id: string; score: number }[] {
  if (candidates.length === 0 || terms.length === 0) return [];
  const matchers = termMatchers(terms);
  const docs = candidates.map((item) => {
    const { title, tags, content } = item.words;
    const weight = titleWeight(item.kind);
    const tf = matchers.map(
      (m) => weight * count(title, m) + WEIGHTS.tags * count(tags, m) + WEIGHTS.content * count(content, m),
    );
    return { item, tf, length: title.length + tags.length + content.length };
  });
  const avgLength = docs.reduce((s, d) => s + d.length, 0) / docs.length || 1;
  const df = matchers.map((_, i) => docs.filter((d) => d.tf[i]! > 0).length);
  const score = bm25(df, Math.max(docCount, docs.length), avgLength);
  const hits: { item: RankItem; score: number }[] = [];
  for (const d of docs) {
    const value = score((i) => d.tf[i]!, d.length);
    if (value > 0) hits.push({ item: d.item, score: value });
  }
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      (a.item.updatedAt < b.item.updatedAt
        ? 1
        : a.item.updatedAt > b.item.updatedAt
          ? -1
          : a.item.id < b.item.id
            ? -1
            : 1),
  );
  return hits.slice(0, limit).map((h) => ({ id: h.item.id, score: h.score }));
}

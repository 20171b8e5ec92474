/**
 * Hybrid ranking: the lexical score (BM25, search-ranking.ts) fused with the semantic one (word
 * vectors, word-vectors.ts) and, for captured conversation turns, with what surrounds them. An
 * answer often sits in the turn after the question that names the topic ("What have you been
 * researching?" → "Adoption agencies"), so a turn borrows part of its neighbours' scores and of
 * its session's best; a question that names a speaker ("What did Caroline research?") favours
 * that speaker's turns. Weights were chosen on LoCoMo dev conversations (eval/recall.ts) as
 * properties of conversations, not of single questions.
 */

/**
 * Averaged word vectors of unrelated texts still agree somewhat (a cosine of 0.3 to 0.5), so only
 * the part of an entry's cosine more than one standard deviation above the mean over the entries
 * ranked counts: the few entries that stand out. With fewer than three entries, above this floor.
 */
const SEMANTIC_FLOOR = 0.5;
const SEMANTIC_WEIGHT = 2;
/** The facet score (facet-scores.ts, 0 to 1) counts like the best lexical match. */
const FACET_WEIGHT = 1;
/** What a turn borrows from the turns right before and after it, from those two away, and from its session's best. */
const NEIGHBOUR_WEIGHT = 0.35;
const SECOND_NEIGHBOUR_WEIGHT = 0.2;
const SESSION_WEIGHT = 0.3;
/** A turn by a speaker the query names scores this much more. */
const SPEAKER_BOOST = 1.6;

/** Where a captured turn sits in its conversation. */
export interface TurnPlace {
  session: string;
  /** When it was said (ISO); orders a session's turns. */
  at: string;
  /** Lower-case words of the speaker's name, when capture knew it. */
  speaker?: string[];
}

export interface HybridItem {
  id: string;
  updatedAt: string;
  /** BM25 score, 0 when no term matched. */
  lexical: number;
  /** Cosine of the entry's and the query's vectors; undefined when either has none. */
  semantic?: number;
  /** Share of the query's facets the entry meets (facet-scores.ts), 0 when none. */
  facet?: number;
  turn?: TurnPlace;
}

/** Each signal as a column, one value per item (the pool index's own arrays, no object per item). */
export interface ScoreColumns {
  /** BM25 score, 0 when no term matched. */
  lexical: Float64Array;
  /** Cosine of the entry's and the query's vectors; NaN when either has none (absent: none at all). */
  semantic?: Float64Array;
  /** Share of the query's facets the entry meets, 0 when none. */
  facet?: Float64Array;
}

/** fuseColumns over items that carry their own scores. */
export function fuseRanking(items: HybridItem[], queryWords: ReadonlySet<string>, limit: number, groups?: number[][]): { id: string; score: number }[] {
  const columns: ScoreColumns = {
    lexical: Float64Array.from(items, (i) => i.lexical),
    semantic: Float64Array.from(items, (i) => i.semantic ?? Number.NaN),
    facet: Float64Array.from(items, (i) => i.facet ?? 0),
  };
  const places = items.map((i) => i.turn);
  return fuseColumns(items, places, columns, queryWords, limit, groups ?? sessions(items));
}

/**
 * Ranks items by the fused score; items that score nothing are dropped. Ties go to the newest, then
 * the id. `places` are the items' places in their conversations and `groups` their `sessions`,
 * both in the items' order.
 */
export function fuseColumns(
  items: readonly { id: string; updatedAt: string }[],
  places: readonly (TurnPlace | undefined)[],
  { lexical, semantic, facet }: ScoreColumns,
  queryWords: ReadonlySet<string>,
  limit: number,
  groups: number[][],
): { id: string; score: number }[] {
  const n = items.length;
  let maxLexical = 0;
  let cosineSum = 0;
  let cosineSquares = 0;
  let cosines = 0;
  for (let i = 0; i < n; i++) {
    if (lexical[i]! > maxLexical) maxLexical = lexical[i]!;
    const c = semantic ? semantic[i]! : Number.NaN;
    if (!Number.isNaN(c)) {
      cosineSum += c;
      cosineSquares += c * c;
      cosines++;
    }
  }
  maxLexical ||= 1;
  // Mean plus one standard deviation of the cosines.
  const mean = cosines ? cosineSum / cosines : 0;
  const floor = cosines >= 3 ? mean + Math.sqrt(Math.max(cosineSquares / cosines - mean * mean, 0)) : SEMANTIC_FLOOR;
  const base = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const c = semantic ? semantic[i]! : Number.NaN;
    base[i] = lexical[i]! / maxLexical + (!Number.isNaN(c) ? SEMANTIC_WEIGHT * Math.max(c - floor, 0) : 0) + (facet ? FACET_WEIGHT * facet[i]! : 0);
  }
  const score = Float64Array.from(base);
  for (const turns of groups) {
    let best = 0;
    for (const i of turns) best = Math.max(best, base[i]!);
    // No closure per turn: this loop runs over every one of the caller's turns on every search.
    const near = (j: number) => (j >= 0 && j < turns.length ? base[turns[j]!]! : 0);
    for (let k = 0; k < turns.length; k++) {
      const at = turns[k]!;
      let s = base[at]! + NEIGHBOUR_WEIGHT * (near(k - 1) + near(k + 1)) + SECOND_NEIGHBOUR_WEIGHT * (near(k - 2) + near(k + 2)) + SESSION_WEIGHT * best;
      if (namesSpeaker(places[at]!.speaker, queryWords)) s *= SPEAKER_BOOST;
      score[at] = s;
    }
  }
  const before = (a: number, b: number) => {
    const x = items[a]!;
    const y = items[b]!;
    return score[b]! - score[a]! || (x.updatedAt < y.updatedAt ? 1 : x.updatedAt > y.updatedAt ? -1 : x.id < y.id ? -1 : 1);
  };
  // Only the best `limit` are kept, in order: most of a caller's entries score a little (their session's share).
  const best: number[] = [];
  for (let i = 0; i < n; i++) {
    if (score[i]! <= 0 || (best.length === limit && before(i, best[limit - 1]!) >= 0)) continue;
    let at = best.length === limit ? limit - 1 : best.length;
    while (at > 0 && before(i, best[at - 1]!) < 0) {
      best[at] = best[at - 1]!;
      at--;
    }
    best[at] = i;
  }
  return best.map((i) => ({ id: items[i]!.id, score: score[i]! }));
}

function namesSpeaker(speaker: string[] | undefined, queryWords: ReadonlySet<string>): boolean {
  if (speaker) for (const w of speaker) if (queryWords.has(w)) return true;
  return false;
}

/** Positions of the turns among the items, by session, each session in the order it was said. */
export function sessions(items: Pick<HybridItem, 'id' | 'turn'>[]): number[][] {
  const bySession = new Map<string, number[]>();
  items.forEach((item, i) => {
    if (!item.turn) return;
    const list = bySession.get(item.turn.session);
    if (list) list.push(i);
    else bySession.set(item.turn.session, [i]);
  });
  for (const list of bySession.values()) {
    list.sort((a, b) => {
      const x = items[a]!;
      const y = items[b]!;
      return x.turn!.at < y.turn!.at ? -1 : x.turn!.at > y.turn!.at ? 1 : x.id < y.id ? -1 : 1;
    });
  }
  return [...bySession.values()];
}

/** The words of speakers' names that the query uses: they say whose turns to favour, not what about. */
export function speakersNamed(places: Iterable<TurnPlace | undefined>, queryWords: readonly string[]): Set<string> {
  const asked = new Set(queryWords);
  const named = new Set<string>();
  for (const place of places) for (const w of place?.speaker ?? []) if (asked.has(w)) named.add(w);
  return named;
}

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
  turn?: TurnPlace;
}

/** Ranks items by the fused score; items that score nothing are dropped. Ties go to the newest, then the id. */
export function fuseRanking(items: HybridItem[], queryWords: ReadonlySet<string>, limit: number): { id: string; score: number }[] {
  const maxLexical = Math.max(0, ...items.map((i) => i.lexical)) || 1;
  const cosines = items.flatMap((i) => (i.semantic === undefined ? [] : [i.semantic]));
  const floor = cosines.length >= 3 ? standOut(cosines) : SEMANTIC_FLOOR;
  const base = new Map(items.map((i) => [i.id, i.lexical / maxLexical + SEMANTIC_WEIGHT * Math.max((i.semantic ?? floor) - floor, 0)]));
  const score = new Map(base);
  for (const turns of sessions(items)) {
    const best = Math.max(...turns.map((t) => base.get(t.id)!));
    turns.forEach((t, i) => {
      const near = (j: number) => (turns[j] ? base.get(turns[j].id)! : 0);
      let s = base.get(t.id)! + NEIGHBOUR_WEIGHT * (near(i - 1) + near(i + 1)) + SECOND_NEIGHBOUR_WEIGHT * (near(i - 2) + near(i + 2)) + SESSION_WEIGHT * best;
      if (t.turn!.speaker?.some((w) => queryWords.has(w))) s *= SPEAKER_BOOST;
      score.set(t.id, s);
    });
  }
  return items
    .map((item) => ({ item, score: score.get(item.id)! }))
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.item.updatedAt < b.item.updatedAt ? 1 : a.item.updatedAt > b.item.updatedAt ? -1 : a.item.id < b.item.id ? -1 : 1))
    .slice(0, limit)
    .map((h) => ({ id: h.item.id, score: h.score }));
}

/** Mean plus one standard deviation. */
function standOut(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return mean + Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
}

/** The turns among the items, by session, each session in the order it was said. */
function sessions(items: HybridItem[]): HybridItem[][] {
  const bySession = new Map<string, HybridItem[]>();
  for (const item of items) {
    if (!item.turn) continue;
    const list = bySession.get(item.turn.session);
    if (list) list.push(item);
    else bySession.set(item.turn.session, [item]);
  }
  for (const list of bySession.values()) list.sort((a, b) => (a.turn!.at < b.turn!.at ? -1 : a.turn!.at > b.turn!.at ? 1 : a.id < b.id ? -1 : 1));
  return [...bySession.values()];
}

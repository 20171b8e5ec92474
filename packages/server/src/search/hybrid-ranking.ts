import { scratchLength } from './scratch.js';

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

// Module-level on purpose: scratch of one synchronous pass, written before it is read, so Cairns in one process may share it.
/** Each item's own score and its score in context, kept between searches (fuseColumns is synchronous): two arrays of the pool's size less to allocate per search. */
let baseScratch = new Float64Array(0);
let scoreScratch = new Float64Array(0);

/** fuseColumns over items that carry their own scores. */
export function fuseRanking(
  items: HybridItem[],
  queryWords: ReadonlySet<string>,
  limit: number,
  groups?: number[][],
): { id: string; score: number }[] {
  const columns: ScoreColumns = {
    lexical: Float64Array.from(items, (i) => i.lexical),
    semantic: Float64Array.from(items, (i) => i.semantic ?? Number.NaN),
    facet: Float64Array.from(items, (i) => i.facet ?? 0),
  };
  const boosted = speakerBoosts(speakerIndex(items.map((i) => i.turn)), queryWords);
  return fuseColumns(items, columns, boosted, limit, groups ?? sessions(items));
}

/**
 * Ranks items by the fused score; items that score nothing are dropped. Ties go to the newest, then
 * the id. `boosted` marks the items whose speaker the query names (speakerBoosts) and `groups` are
 * the items' `sessions`, both in the items' order.
 */
export function fuseColumns(
  items: readonly { id: string; updatedAt: string }[],
  { lexical, semantic, facet }: ScoreColumns,
  boosted: Uint8Array | undefined,
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
  if (baseScratch.length < n) {
    baseScratch = new Float64Array(scratchLength(n));
    scoreScratch = new Float64Array(scratchLength(n));
  }
  const base = baseScratch;
  ownScores(base, n, lexical, maxLexical, semantic, floor, facet);
  // Without conversation turns an item's score is its own.
  if (groups.length === 0) return topItems(items, base, limit);
  const score = scoreScratch;
  score.set(base.subarray(0, n));
  for (const turns of groups) addContext(turns, base, boosted, score);
  return topItems(items, score, limit);
}

/**
 * Each item's own score: its lexical share, what its cosine has above the floor, and its facets.
 * One loop per set of signals, so that none asks for each item whether a column is there.
 */
function ownScores(
  base: Float64Array,
  n: number,
  lexical: Float64Array,
  maxLexical: number,
  semantic: Float64Array | undefined,
  floor: number,
  facet: Float64Array | undefined,
): void {
  if (semantic && facet)
    for (let i = 0; i < n; i++) {
      const c = semantic[i]!;
      base[i] =
        lexical[i]! / maxLexical +
        (!Number.isNaN(c) ? SEMANTIC_WEIGHT * above(c, floor) : 0) +
        FACET_WEIGHT * facet[i]!;
    }
  else if (semantic)
    for (let i = 0; i < n; i++) {
      const c = semantic[i]!;
      base[i] = lexical[i]! / maxLexical + (!Number.isNaN(c) ? SEMANTIC_WEIGHT * above(c, floor) : 0);
    }
  else if (facet) for (let i = 0; i < n; i++) base[i] = lexical[i]! / maxLexical + FACET_WEIGHT * facet[i]!;
  else for (let i = 0; i < n; i++) base[i] = lexical[i]! / maxLexical;
}

/**
 * max(c − floor, 0), exactly, without a branch: whether a cosine clears the floor is a coin toss
 * item to item, and a mispredicted branch per item was most of this loop's time.
 */
function above(c: number, floor: number): number {
  const d = c - floor;
  return (d + Math.abs(d)) * 0.5;
}

/** A session's turns' scores: their own, part of their neighbours' and of the session's best, times the speaker boost. */
function addContext(turns: number[], base: Float64Array, boosted: Uint8Array | undefined, score: Float64Array): void {
  const last = turns.length - 1;
  let best = 0;
  for (let k = 0; k <= last; k++) best = Math.max(best, base[turns[k]!]!);
  // A window of five turns slides along the session: each turn's base is read once, not five times.
  let before2 = 0;
  let before1 = 0;
  let here = base[turns[0]!]!;
  let after1 = last >= 1 ? base[turns[1]!]! : 0;
  let after2 = last >= 2 ? base[turns[2]!]! : 0;
  for (let k = 0; k <= last; k++) {
    const at = turns[k]!;
    let s =
      here +
      NEIGHBOUR_WEIGHT * (before1 + after1) +
      SECOND_NEIGHBOUR_WEIGHT * (before2 + after2) +
      SESSION_WEIGHT * best;
    if (boosted !== undefined && boosted[at] === 1) s *= SPEAKER_BOOST;
    score[at] = s;
    before2 = before1;
    before1 = here;
    here = after1;
    after1 = after2;
    after2 = k + 3 <= last ? base[turns[k + 3]!]! : 0;
  }
}

/** The best `limit` items by score, in order: most of a caller's entries score a little (their session's share), so no full sort. */
function topItems(
  items: readonly { id: string; updatedAt: string }[],
  score: Float64Array,
  limit: number,
): { id: string; score: number }[] {
  const before = (a: number, b: number) => {
    const x = items[a]!;
    const y = items[b]!;
    return (
      score[b]! - score[a]! || (x.updatedAt < y.updatedAt ? 1 : x.updatedAt > y.updatedAt ? -1 : x.id < y.id ? -1 : 1)
    );
  };
  if (limit >= items.length) {
    // Every item asked for (a filtered search): one sort, not an insertion per item.
    const all: number[] = [];
    for (let i = 0; i < items.length; i++) if (score[i]! > 0) all.push(i);
    return all.sort(before).map((i) => ({ id: items[i]!.id, score: score[i]! }));
  }
  const kept: number[] = [];
  // The lowest score kept once `limit` are (till then the least above 0): an item below it is
  // passed by on one comparison, which nearly all items are.
  let floor = Number.MIN_VALUE;
  for (let i = 0; i < items.length; i++) {
    if (score[i]! < floor || (kept.length === limit && before(i, kept[limit - 1]!) >= 0)) continue;
    let at = kept.length === limit ? limit - 1 : kept.length;
    while (at > 0 && before(i, kept[at - 1]!) < 0) {
      kept[at] = kept[at - 1]!;
      at--;
    }
    kept[at] = i;
    if (kept.length === limit) floor = score[kept[limit - 1]!]!;
  }
  return kept.map((i) => ({ id: items[i]!.id, score: score[i]! }));
}

/** The items' speakers, each distinct one once: `of[i]` indexes `names`, -1 for an item without a speaker. */
export interface SpeakerIndex {
  of: Int32Array;
  names: string[][];
}

export function speakerIndex(places: readonly (TurnPlace | undefined)[]): SpeakerIndex {
  const of = new Int32Array(places.length).fill(-1);
  const names: string[][] = [];
  const known = new Map<string, number>();
  places.forEach((place, i) => {
    if (!place?.speaker) return;
    // Words hold no spaces, so the joined words tell the lists apart.
    const key = place.speaker.join(' ');
    let k = known.get(key);
    if (k === undefined) {
      k = names.push(place.speaker) - 1;
      known.set(key, k);
    }
    of[i] = k;
  });
  return { of, names };
}

/** 1 for each item whose speaker has a word among `named`; undefined when none has (the boost then changes nothing). */
export function speakerBoosts({ of, names }: SpeakerIndex, named: ReadonlySet<string>): Uint8Array | undefined {
  if (named.size === 0) return undefined;
  const hit = names.map((name) => name.some((w) => named.has(w)));
  if (!hit.includes(true)) return undefined;
  const boosted = new Uint8Array(of.length);
  for (let i = 0; i < of.length; i++) if (of[i]! >= 0 && hit[of[i]!]) boosted[i] = 1;
  return boosted;
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
export function speakersNamed(
  speakers: Iterable<readonly string[] | undefined>,
  queryWords: readonly string[],
): Set<string> {
  const asked = new Set(queryWords);
  const named = new Set<string>();
  for (const speaker of speakers) for (const w of speaker ?? []) if (asked.has(w)) named.add(w);
  return named;
}

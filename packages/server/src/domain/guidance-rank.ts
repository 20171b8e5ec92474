import type { BoundedCache } from '../cache/bounded-cache.js';
import { isStopWord, lightStem, words } from '../search/index.js';
import type { Entry } from '../store/types.js';

/**
 * How well each rule's topic matches a task, over the caller's whole rulebook: BM25F over a rule's
 * title, tags, `when` (its author's words for when it is needed) and content, asked with the task's
 * words, the agent's `concerns` (its own words for what the work touches) and the project's and
 * files' names, each with a weight of its own. Search ranks every kind of entry with conversation
 * context in mind; a rulebook is small and its `when` sentences are written to be matched against a
 * task, so guidance ranks it itself.
 */

/** A rule as the ranker reads it. */
export type RankedRule = Pick<Entry, 'id' | 'title' | 'tags' | 'content' | 'applies'> & Partial<Pick<Entry, 'version'>>;

/** What the task says, in three voices. */
export interface TopicQuery {
  task: string;
  concerns?: readonly string[];
  /** The project's and files' names as words. */
  context?: string;
}

/** Weights of the fields and of the query's voices (tuned in eval/guidance-tune.ts). */
export interface RankWeights {
  title: number;
  tags: number;
  when: number;
  content: number;
  concerns: number;
  context: number;
}

export const RANK_WEIGHTS: RankWeights = { title: 2, tags: 1.5, when: 2, content: 1, concerns: 1, context: 0.3 };

const K1 = 1.2;
const B = 0.75;
const FIELDS = ['title', 'tags', 'when', 'content'] as const;
type Field = (typeof FIELDS)[number];

/** The stems of a text's words, stop words left out. */
export function stems(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!isStopWord(w) && (w.length > 1 || /\d/.test(w))) out.push(lightStem(w));
  return out;
}

interface Doc {
  id: string;
  /** Per field: stem → count. */
  tf: Record<Field, Map<string, number>>;
  len: Record<Field, number>;
}

/** A rule's stemmed words per field and their counts (DomainCaches.ruleWords keeps them by id and version). */
export type RuleWords = Pick<Doc, 'tf' | 'len'>;

function analysed(r: RankedRule, analyses: BoundedCache<string, RuleWords> | undefined): RuleWords {
  const key = r.version === undefined ? undefined : `${r.id}:${r.version}`;
  const held = key ? analyses?.get(key) : undefined;
  if (held) return held;
  const text: Record<Field, string> = {
    title: r.title,
    tags: r.tags.join(' '),
    when: r.applies?.when ?? '',
    content: r.content,
  };
  const tf = {} as Doc['tf'];
  const len = {} as Doc['len'];
  for (const f of FIELDS) {
    const s = stems(text[f]);
    len[f] = s.length;
    const m = new Map<string, number>();
    for (const t of s) m.set(t, (m.get(t) ?? 0) + 1);
    tf[f] = m;
  }
  const doc = { tf, len };
  if (key) analyses?.set(key, doc);
  return doc;
}

/** A rulebook indexed once for one request's ranking. */
export class RuleIndex {
  private readonly docs: Doc[];
  private readonly df = new Map<string, number>();
  private readonly avg: Record<Field, number>;
  /** Built once per set of weights (the default's, in production). */
  private readonly postings = new Map<RankWeights, Map<string, { doc: number; tf: number }[]>>();

  /** `analyses`: the rules' words already stemmed, by id and version (DomainCaches.ruleWords); filled with the rest. */
  constructor(rules: readonly RankedRule[], analyses?: BoundedCache<string, RuleWords>) {
    this.docs = rules.map((r) => {
      const { tf, len } = analysed(r, analyses);
      for (const t of new Set(FIELDS.flatMap((f) => [...tf[f].keys()]))) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return { id: r.id, tf, len };
    });
    const n = Math.max(1, this.docs.length);
    this.avg = Object.fromEntries(
      FIELDS.map((f) => [f, Math.max(1, this.docs.reduce((s, d) => s + d.len[f], 0) / n)]),
    ) as Record<Field, number>;
  }

  /** Each rule's score for the query (0 for a rule that shares no word with it), by id. */
  scores(query: TopicQuery, weights: RankWeights = RANK_WEIGHTS): Map<string, number> {
    const q = new Map<string, number>();
    const add = (text: string, w: number) => {
      for (const t of new Set(stems(text))) q.set(t, Math.max(q.get(t) ?? 0, w));
    };
    add(query.context ?? '', weights.context);
    for (const c of query.concerns ?? []) add(c, weights.concerns);
    add(query.task, 1);
    const n = this.docs.length;
    const postings = this.postingsFor(weights);
    const sums = new Float64Array(n);
    for (const [t, qw] of q) {
      const list = postings.get(t);
      if (!list) continue;
      const df = this.df.get(t)!;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const { doc, tf } of list) sums[doc]! += qw * idf * (tf / (K1 + tf));
    }
    const out = new Map<string, number>();
    for (const [i, d] of this.docs.entries()) out.set(d.id, sums[i]!);
    return out;
  }

  /** Per stem, the rules holding it with their weighted, length-normed term frequency: a query reads only its terms' rules. */
  private postingsFor(weights: RankWeights): Map<string, { doc: number; tf: number }[]> {
    let held = this.postings.get(weights);
    if (held) return held;
    held = new Map();
    for (const [doc, d] of this.docs.entries()) {
      const tfs = new Map<string, number>();
      for (const f of FIELDS)
        for (const [t, c] of d.tf[f])
          tfs.set(t, (tfs.get(t) ?? 0) + (weights[f] * c) / (1 - B + (B * d.len[f]) / this.avg[f]));
      for (const [t, tf] of tfs) {
        const list = held.get(t);
        if (list) list.push({ doc, tf });
        else held.set(t, [{ doc, tf }]);
      }
    }
    this.postings.set(weights, held);
    return held;
  }
}

/** A rule's topic evidence for a task, each part relative to the task's best (0..1). */
export interface TopicSignals {
  /** BM25F of the whole query (task, concerns and context words together). */
  text: number;
  /** Each concern asked alone, relative to that concern's best rule, summed over concerns. */
  concern: number;
  /**
   * With concerns: the best place the rule takes in any one concern's own ranking (0 is a concern's
   * best rule; the count of rules scoring above it), Infinity when no concern matches it.
   */
  concernPlace?: number;
}

/**
 * The topic signals of every rule that shares a word with the query. A concern asked alone finds
 * the rule about it even when the task's other words pull the whole query elsewhere.
 */
export function topicSignals(
  index: RuleIndex,
  query: TopicQuery,
  weights: RankWeights = RANK_WEIGHTS,
): Map<string, TopicSignals> {
  const out = new Map<string, TopicSignals>();
  const concerns = query.concerns ?? [];
  const place = concerns.length ? Number.POSITIVE_INFINITY : undefined;
  const whole = index.scores(query, weights);
  const best = Math.max(0, ...whole.values());
  for (const [id, s] of whole) if (s > 0) out.set(id, { text: s / best, concern: 0, concernPlace: place });
  for (const c of concerns) {
    const alone = index.scores({ task: c }, weights);
    const ranked = [...alone.values()].filter((s) => s > 0).sort((a, b) => b - a);
    const top = ranked[0] ?? 0;
    if (top <= 0) continue;
    for (const [id, s] of alone) {
      if (s <= 0) continue;
      const sig = out.get(id) ?? { text: 0, concern: 0, concernPlace: place };
      sig.concern += s / top;
      sig.concernPlace = Math.min(sig.concernPlace ?? Number.POSITIVE_INFINITY, placeOf(ranked, s));
      out.set(id, sig);
    }
  }
  return out;
}

/** How many of the descending scores lie above s (ties share a place). */
function placeOf(descending: readonly number[], s: number): number {
  let lo = 0;
  let hi = descending.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (descending[mid]! > s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

import type { Entry, Scope } from '../store/types.js';

/** Why an item is given: the admin said always, the task's files or project match, or its topic does (with the score). */
export type GuidanceReason =
  | { type: 'always' }
  | { type: 'file'; glob: string }
  | { type: 'project'; name: string }
  | { type: 'topic'; score: number };

/** A rule's topic evidence for the task, each part relative to the task's best (0..1, concern summed over concerns). */
export interface CandidateSignals {
  /** The rulebook's own ranking of the whole query (guidance-rank.ts). */
  text: number;
  /** Each of the agent's concerns asked alone (guidance-rank.ts). */
  concern: number;
  /** Search's ranking of the task's words (word vectors and all), 0 when search did not find it. */
  search: number;
  /** How close its title and tags are to the task's words in meaning (title-closeness.ts), when asked for. */
  title: number;
}

/** A rule that might apply: its topic evidence for the task and whether its files or project match. */
export interface GuidanceCandidate {
  entry: Entry;
  datapack: { id: string; name: string; scope: Scope };
  signals: CandidateSignals;
  /** `file: <glob>` or `project: <name>` when the entry's applicability matches the task's context. */
  context?: GuidanceReason;
  /** When the task names concerns: the best place it takes in one concern's own ranking (0 first, Infinity for none). */
  concernPlace?: number;
}

/** A selected rule with its reason and its topic score. */
export interface Selected extends GuidanceCandidate {
  reason: GuidanceReason;
  score: number;
}

/**
 * How topic matches are kept. Scores are relative to the task's best topic match, since no signal
 * has a fixed scale. Tuned on the dev company's tasks across five folds (eval/guidance-tune.ts).
 */
export interface TopicTuning {
  /** Weights of the signals in a rule's topic score. */
  weights: CandidateSignals;
  /** At most this many topic matches are given in full… */
  full: number;
  /** …each reaching this share of the best. */
  relative: number;
  /** After them, up to this many are named as rules that may also apply… */
  named: number;
  /** …each reaching this share of the best. */
  namedRelative: number;
  /**
   * When the task names concerns, a topic match is given in full only if it is among the first this
   * many of some concern's own ranking: the rule a concern names is its best match, a rule no concern
   * ranks near its top seldom applies, however many of the task's words it shares.
   */
  concernPlaces: number;
  /** A rule scoped to other files or projects is given in full on topic only at this share of the best (the task is about it). */
  scopedRelative: number;
}

/** With the rulebook's own ranking: the task's words, its concerns, search's ranking beside them. */
export const TOPIC_TUNING: TopicTuning = {
  weights: { text: 1, concern: 0.2, search: 0.15, title: 0 },
  full: 6,
  relative: 0.4,
  named: 10,
  namedRelative: 0.1,
  concernPlaces: 3,
  scopedRelative: 1.01,
};

/**
 * When topic is all there is (no rule says where or when it applies, the task names no files or
 * project): no "always" rule takes room, so more topic matches are given, and titles close in
 * meaning count.
 */
export const TOPIC_TUNING_WORDS_ONLY: TopicTuning = {
  ...TOPIC_TUNING,
  weights: { ...TOPIC_TUNING.weights, title: 0.25 },
  full: 10,
  relative: 0.3,
};

/** When the agent names no concerns, the task's own words rank less sharply: a lower floor keeps recall. */
export const TOPIC_TUNING_NO_CONCERNS: TopicTuning = { ...TOPIC_TUNING, full: 7, relative: 0.2 };

/** The tuning for a task: the words-only one when nothing else is known about the rules or the task. */
export function topicTuningFor(
  input: { files?: readonly string[]; project?: string; concerns?: readonly string[] },
  annotatedRules: boolean,
): TopicTuning {
  if (!annotatedRules && !(input.files?.length ?? 0) && !input.project) return TOPIC_TUNING_WORDS_ONLY;
  return input.concerns?.length ? TOPIC_TUNING : TOPIC_TUNING_NO_CONCERNS;
}

/** Whether any of the candidates says where or when it applies. */
export function anyAnnotated(candidates: readonly Pick<GuidanceCandidate, 'entry'>[]): boolean {
  return candidates.some((c) => !!c.entry.applies);
}

/** What is given: rules in full, strongest reason first, and the next candidates to name. */
export interface Selection {
  given: Selected[];
  /** The next topic candidates, best first: named, not given. */
  mayAlsoApply: Selected[];
  /** How many more candidates matched some of the task's words beyond those named. */
  more: number;
}

/** A candidate's topic score under a tuning. */
export function topicScore(s: CandidateSignals, w: CandidateSignals): number {
  return w.text * s.text + w.concern * s.concern + w.search * s.search + w.title * s.title;
}

/** Picks what applies, strongest reason first: always, then the task's files and project, then topic matches by score. */
export function selectGuidance(
  candidates: readonly GuidanceCandidate[],
  tuning: TopicTuning = TOPIC_TUNING,
): Selection {
  const live = candidates.filter((c) => !c.entry.replacedBy && !c.entry.deletedAt);
  const always: Selected[] = [];
  const context: Selected[] = [];
  const topical: Selected[] = [];
  for (const c of live) {
    const score = topicScore(c.signals, tuning.weights);
    if (c.entry.applies?.always) always.push({ ...c, score, reason: { type: 'always' } });
    else if (c.context) context.push({ ...c, score, reason: c.context });
    else if (score > 0) topical.push({ ...c, score, reason: { type: 'topic', score: round(score) } });
  }
  topical.sort((a, b) => b.score - a.score || a.entry.id.localeCompare(b.entry.id));
  const best = topical[0]?.score ?? 0;
  const topic: Selected[] = [];
  const named: Selected[] = [];
  let more = 0;
  for (const c of topical) {
    const scoped = (c.entry.applies?.files.length ?? 0) + (c.entry.applies?.projects.length ?? 0) > 0;
    const inFull =
      topic.length < tuning.full &&
      c.score >= tuning.relative * best &&
      (c.concernPlace === undefined || c.concernPlace < tuning.concernPlaces) &&
      (!scoped || c.score >= tuning.scopedRelative * best);
    if (inFull) topic.push(c);
    else if (c.score < tuning.namedRelative * best) continue;
    else if (named.length < tuning.named) named.push(c);
    else more++;
  }
  return { given: [...always, ...context, ...topic], mayAlsoApply: named, more };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

import type { Entry, Scope } from '../store/types.js';

/** Why an item is given: the admin said always, the task's files or project match, or its topic does (with the score). */
export type GuidanceReason = { type: 'always' } | { type: 'file'; glob: string } | { type: 'project'; name: string } | { type: 'topic'; score: number };

/** A rule that might apply: its topic score for the task (0 when search did not find it) and whether its files or project match. */
export interface GuidanceCandidate {
  entry: Entry;
  datapack: { id: string; name: string; scope: Scope };
  /** The search score of the entry for the task, 0 when not found. */
  score: number;
  /** `file: <glob>` or `project: <name>` when the entry's applicability matches the task's context. */
  context?: GuidanceReason;
}

/** A selected rule with its reason. */
export interface Selected extends GuidanceCandidate {
  reason: GuidanceReason;
}

/**
 * How topic matches are kept. Scores are relative to the task's best topic match, since search's
 * scores have no fixed scale (BM25 is normalised by the best lexical match of each query).
 */
export interface TopicTuning {
  /** A topic match must reach this share of the best one. */
  relative: number;
  /** And at least this score. */
  absolute: number;
  /** At most this many topic matches in all. */
  max: number;
  /** An entry scoped to other files or projects is given only when its topic score reaches this share of the best (the task is about it). */
  scopedRelative: number;
  /** And at least this score, however wide the floor for other rules. */
  scopedAbsolute: number;
  /**
   * Each level's matches are measured against that level's best as well: a team standard on the
   * task's subject is given beside the organization policy that matches the task's words better.
   * The share of the overall best a level's best must still reach.
   */
  levelRelative: number;
  /** How much the closeness of a rule's title and tags to the task's words (see guidance-soft.ts) adds to search's score. */
  titleWeight: number;
}

/** When the task names its files or project: those rules and the "always" ones carry most of the answer, topic adds a few close matches. */
export const TOPIC_TUNING: TopicTuning = { relative: 0.7, absolute: 0.6, max: 4, scopedRelative: 0.9, scopedAbsolute: 0.6, levelRelative: 0.4, titleWeight: 0 };

/**
 * When the task names neither files nor project, topic is all there is to go on, and search's
 * ranking puts many applicable rules well below the best match: a wider floor and cap keep
 * recall near giving every level's top five, at a higher precision, and a rule whose title is
 * close to the task's words in meaning moves up. (With files or project given, the title
 * closeness cost precision on the dev company's tasks for no recall, so it is left out there.)
 */
export const TOPIC_TUNING_WORDS_ONLY: TopicTuning = { relative: 0.3, absolute: 0.2, max: 12, scopedRelative: 0.9, scopedAbsolute: 0.6, levelRelative: 0.2, titleWeight: 0.25 };

/**
 * The tuning for a task: the wide one only when topic is all there is, that is when the task names
 * neither files nor project and none of the caller's rules says where it applies (a rulebook
 * nobody annotated). Where an admin marked rules "always" or scoped, those carry the general
 * guidance, and a wide topic net would mostly add noise.
 */
export function topicTuningFor(input: { files?: readonly string[]; project?: string }, annotatedRules: boolean): TopicTuning {
  return annotatedRules || (input.files?.length ?? 0) > 0 || input.project ? TOPIC_TUNING : TOPIC_TUNING_WORDS_ONLY;
}

/** Whether any of the candidates says where it applies. */
export function anyAnnotated(candidates: readonly Pick<GuidanceCandidate, 'entry'>[]): boolean {
  return candidates.some((c) => !!c.entry.applies);
}

/** Picks what applies, strongest reason first: always, then the task's files and project, then topic matches by score. */
export function selectGuidance(candidates: readonly GuidanceCandidate[], tuning: TopicTuning = TOPIC_TUNING): Selected[] {
  const live = candidates.filter((c) => !c.entry.replacedBy && !c.entry.deletedAt);
  const always: Selected[] = [];
  const context: Selected[] = [];
  const topical: GuidanceCandidate[] = [];
  for (const c of live) {
    if (c.entry.applies?.always) always.push({ ...c, reason: { type: 'always' } });
    else if (c.context) context.push({ ...c, reason: c.context });
    else if (c.score > 0) topical.push(c);
  }
  topical.sort((a, b) => b.score - a.score);
  const best = topical[0]?.score ?? 0;
  const levelBest = new Map<Scope, number>();
  for (const c of topical) if (!levelBest.has(c.datapack.scope)) levelBest.set(c.datapack.scope, c.score);
  const floorOf = (scope: Scope) => {
    const own = levelBest.get(scope) ?? best;
    const top = own >= tuning.levelRelative * best ? own : best;
    return Math.max(tuning.absolute, tuning.relative * top);
  };
  const topic: Selected[] = [];
  for (const c of topical) {
    if (topic.length >= tuning.max) break;
    if (c.score < floorOf(c.datapack.scope)) continue;
    const scoped = (c.entry.applies?.files.length ?? 0) + (c.entry.applies?.projects.length ?? 0) > 0;
    if (scoped && c.score < Math.max(tuning.scopedAbsolute, tuning.scopedRelative * best)) continue;
    topic.push({ ...c, reason: { type: 'topic', score: round(c.score) } });
  }
  return [...always, ...context, ...topic];
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

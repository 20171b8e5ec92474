import { z } from 'zod';
import type { Datapack, Entry, Scope } from '../store/types.js';
import type { Access } from './access.js';
import { TaskContext, taskContextInput } from './applies.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import type { DomainCaches } from './domain-caches.js';
import { type DatapackRef, type PublicEntry, publicEntry } from './entry-views.js';
import { fitAnswer, type Guidance, type GuidanceItem, reasonText } from './guidance-answer.js';
import { RuleIndex, topicSignals } from './guidance-rank.js';
import {
  anyAnnotated,
  type GuidanceCandidate,
  selectGuidance,
  type TopicTuning,
  topicTuningFor,
} from './guidance-select.js';
import { isExpired, isReviewDue, today } from './lifecycle.js';
import { parse } from './parse-input.js';
import { titleCloseness, wordVectors } from './title-closeness.js';

export type { Guidance, GuidanceItem } from './guidance-answer.js';
export type { GuidanceConflict } from './guidance-conflicts.js';
export type { GuidanceReason } from './guidance-select.js';

/**
 * What a task's whole answer fits in when the caller names no budget: about a thousand tokens of an
 * agent's context, enough for a person's "always" rules and a few topic matches beside them.
 */
export const DEFAULT_MAX_CHARS = 5000;

/** Input of getGuidance. */
export const guidanceInput = z.object({
  task: z.string().trim().min(1).max(2000).describe('The task, in plain words'),
  ...taskContextInput,
  maxChars: z.number().int().min(500).max(50_000).default(DEFAULT_MAX_CHARS).describe('Answer budget in characters'),
});

/** The kinds that are rules; conversations and the rest are found by search. */
const RULE_KINDS = ['policy', 'standard', 'preference', 'decision', 'note'];
/** How many of search's ranked entries are considered for topic matches. */
const SEARCH_DEPTH = 20;
/** How many of the newest rules the rulebook's own ranking reads; older ones are found by search. */
const RULEBOOK_DEPTH = 5000;

/** Finds what applies to a task in every readable datapack and orders it by precedence. */
export async function getGuidance(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof guidanceInput>,
  tuning?: TopicTuning,
): Promise<Guidance> {
  const input = parse(guidanceInput, raw);
  const day = today(deps);
  // An expired rule is no longer served, in full or as a pointer, until renewed.
  const candidates = (await guidanceCandidates(deps, access, input)).filter((c) => !isExpired(c.entry, day));
  const answer = fitAnswer(
    input.task,
    selectGuidance(candidates, tuning ?? topicTuningFor(input, anyAnnotated(candidates))),
    input.maxChars,
    deps.caches.ruleVectors,
  );
  return { ...answer, today: day };
}

/**
 * Every rule that might apply, with its topic evidence: the rulebook's own ranking of the caller's
 * rules (their words and `when` against the task, its concerns and its context), search's best
 * matches for the task, and every rule that says where it applies, with whether the task's files
 * or project match it.
 */
export async function guidanceCandidates(
  deps: DomainDeps,
  access: Access,
  input: { task: string; files?: string[]; project?: string; concerns?: string[] },
): Promise<GuidanceCandidate[]> {
  const packs = await readableDatapacks(deps, access);
  const byId = new Map<string, Datapack>(packs.map((p) => [p.id, p]));
  const datapackIds = packs.map((p) => p.id);
  const files = input.files ?? [];
  const concerns = input.concerns ?? [];
  const text = [topicText(input), ...concerns].join(' ').trim();
  const [hits, annotated, rulebook] = await Promise.all([
    deps.store.rankedEntries({ datapackIds, text, kinds: RULE_KINDS, limit: SEARCH_DEPTH }),
    deps.store.annotatedEntries(datapackIds),
    deps.store.ruleEntries(datapackIds, RULE_KINDS, RULEBOOK_DEPTH),
  ]);
  const ref = (datapackId: string) => {
    const d = byId.get(datapackId)!;
    return { id: d.id, name: d.name, scope: d.scope };
  };
  const rules = new Map<string, Entry>();
  for (const e of [...rulebook, ...annotated])
    if (RULE_KINDS.includes(e.kind) && byId.has(e.datapackId)) rules.set(e.id, e);
  const signals = topicSignals(indexOf(deps.caches, rulebook, rules), {
    task: input.task,
    concerns,
    context: contextWords(input),
  });
  const bestHit = Math.max(0, ...hits.map((h) => h.score));
  const searchScore = new Map(hits.map((h) => [h.entry.id, bestHit > 0 ? h.score / bestHit : 0]));
  for (const { entry } of hits) if (!rules.has(entry.id) && byId.has(entry.datapackId)) rules.set(entry.id, entry);
  const context = new TaskContext(files, input.project);
  await context.prepare([...rules.values()].map((e) => e.applies));
  const withTitles =
    topicTuningFor(input, anyAnnotated([...rules.values()].map((entry) => ({ entry })))).weights.title > 0;
  const taskVectors = withTitles ? wordVectors(input.task) : [];
  const found: GuidanceCandidate[] = [];
  for (const entry of rules.values()) {
    const own = signals.get(entry.id);
    const c: GuidanceCandidate = {
      entry,
      datapack: ref(entry.datapackId),
      signals: {
        text: own?.text ?? 0,
        concern: own?.concern ?? 0,
        search: searchScore.get(entry.id) ?? 0,
        title: withTitles ? titleCloseness(taskVectors, entry) : 0,
      },
    };
    if (concerns.length) c.concernPlace = own?.concernPlace ?? Number.POSITIVE_INFINITY;
    const reason = context.reason(entry.applies);
    if (reason)
      c.context = reason.startsWith('project: ')
        ? { type: 'project', name: reason.slice(9) }
        : { type: 'file', glob: reason.slice(6) };
    found.push(c);
  }
  return found;
}

/** The rulebook's index, built once per state of the rules (DomainCaches.rulebooks). */
function indexOf(caches: DomainCaches, rulebook: readonly Entry[], rules: Map<string, Entry>): RuleIndex {
  // Annotated rules beyond the rulebook's depth join it; then the index is for this request alone.
  if (rules.size > rulebook.length) return new RuleIndex([...rules.values()], caches.ruleWords);
  let index = caches.rulebooks.get(rulebook);
  if (!index) {
    index = new RuleIndex(rulebook, caches.ruleWords);
    caches.rulebooks.set(rulebook, index);
  }
  return index;
}

/** The project's name and the files' folder and file names, as words of their own weight. */
function contextWords(input: { files?: readonly string[]; project?: string }): string {
  return [input.project ?? '', ...(input.files ?? []).map(pathWords)].join(' ').trim();
}

/** What search is asked for a task's topic: its words, the project's name and the files' folder and file names. */
export function topicText(input: { task: string; files?: readonly string[]; project?: string }): string {
  return [input.task, input.project ?? '', ...(input.files ?? []).map(pathWords)].join(' ').trim();
}

/** A path's folder and file names as words ("src/refunds/refunds.service.ts" → "src refunds refunds service ts"). */
function pathWords(path: string): string {
  return path.replace(/[/\\._-]+/g, ' ');
}

/** An item as every adapter shows it. */
export interface PublicGuidanceItem {
  entry: PublicEntry;
  datapack: DatapackRef;
  /** "always", "file: <glob>", "project: <name>" or "topic". */
  reason: string;
  /** For a topic match, its score. */
  score?: number;
  /** Present (true) when the rule is past its review-by date: still served, flagged to be reviewed. */
  reviewDue?: true;
}

/** Guidance as every adapter shows it (MCP's structured content, the JSON API). */
export function guidanceView(g: Guidance) {
  const due = (i: GuidanceItem) => g.today !== undefined && isReviewDue(i.entry, g.today);
  const item = (i: GuidanceItem): PublicGuidanceItem => ({
    entry: publicEntry(i.entry),
    datapack: i.datapack,
    reason: reasonText(i.reason),
    ...(i.reason.type === 'topic' && { score: i.reason.score }),
    ...(due(i) && { reviewDue: true as const }),
  });
  return {
    task: g.task,
    levels: g.levels.map((l) => ({ scope: l.scope, label: l.label, items: l.items.map(item) })),
    conflicts: g.conflicts.map((c) => ({
      topic: c.topic,
      prevails: item(c.prevails),
      overridden: item(c.overridden),
      rule: c.rule,
    })),
    omitted: g.omitted,
    mayAlsoApply: g.mayAlsoApply.map((i) => ({ ...pointerView(i), ...(due(i) && { reviewDue: true as const }) })),
    more: g.more,
  };
}

/** A rule that may also apply, as every adapter names it. */
export interface GuidancePointer {
  id: string;
  title: string;
  level: Scope;
  datapack: DatapackRef;
  when?: string;
  score: number;
  reviewDue?: true;
}

function pointerView(i: GuidanceItem): GuidancePointer {
  const when = i.entry.applies?.when;
  return {
    id: i.entry.id,
    title: i.entry.title,
    level: i.datapack.scope,
    datapack: i.datapack,
    ...(when && { when }),
    score: Math.round(i.score * 1000) / 1000,
  };
}

import { z } from 'zod';
import type { Datapack, Scope } from '../store/types.js';
import type { Access } from './access.js';
import { TaskContext, taskContextInput } from './applies.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { type DatapackRef, type PublicEntry, publicEntry } from './entry-views.js';
import { findConflicts, type GuidanceConflict } from './guidance-conflicts.js';
import { anyAnnotated, type GuidanceCandidate, type GuidanceReason, type Selected, selectGuidance, type TopicTuning, topicTuningFor } from './guidance-select.js';
import { titleCloseness, wordVectors } from './guidance-soft.js';
import { parse } from './parse-input.js';

export type { GuidanceConflict } from './guidance-conflicts.js';
export type { GuidanceReason } from './guidance-select.js';

/**
 * What a task's whole answer fits in when the caller names no budget: about a thousand tokens of an
 * agent's context, enough for a person's "always" rules and a few topic matches beside them.
 */
export const DEFAULT_MAX_CHARS = 5000;

/** Input of getGuidance. */
export const guidanceInput = z.object({
  task: z.string().trim().min(1).max(2000).describe('The task at hand, in plain words (e.g. "set up CI for the billing service")'),
  ...taskContextInput,
  maxChars: z.number().int().min(500).max(50_000).default(DEFAULT_MAX_CHARS).describe('Budget for the answer, in characters of its text: rules that do not fit are named in `omitted`'),
});

/** Precedence, strongest first: organization policies, then team standards, then personal preferences. */
export const LEVELS = [
  { scope: 'organization', label: 'Organization policies' },
  { scope: 'team', label: 'Team standards' },
  { scope: 'personal', label: 'Personal preferences' },
] as const satisfies readonly { scope: Scope; label: string }[];

/** The kinds that are rules; conversations and the rest are found by search. */
const RULE_KINDS = ['policy', 'standard', 'preference', 'decision', 'note'];
/** How many of search's ranked entries are considered for topic matches. */
const SEARCH_DEPTH = 20;

/** One applicable entry, where it comes from and why it is given. */
export type GuidanceItem = Selected;

/** What applies to a task, level by level, with the conflicts between its rules and what did not fit. */
export interface Guidance {
  task: string;
  levels: { scope: Scope; label: string; items: GuidanceItem[] }[];
  conflicts: GuidanceConflict[];
  /** Rules that applied but did not fit in maxChars (weakest reasons first left out), and how to see them. */
  omitted: { count: number; note: string } | null;
}

/** Finds what applies to a task in every readable datapack and orders it by precedence. */
export async function getGuidance(deps: DomainDeps, access: Access, raw: z.input<typeof guidanceInput>, tuning?: TopicTuning): Promise<Guidance> {
  const input = parse(guidanceInput, raw);
  const candidates = await guidanceCandidates(deps, access, input);
  return fitAnswer(input.task, selectGuidance(candidates, tuning ?? topicTuningFor(input, anyAnnotated(candidates))), input.maxChars);
}

/**
 * The answer with as many of the selected rules, strongest reasons first, as fit in maxChars with
 * its headings, conflicts and the note on what was left out: the whole text, not only the rules.
 */
export function fitAnswer(task: string, selected: readonly GuidanceItem[], maxChars: number): Guidance {
  const { kept, left } = fitBudget(selected, maxChars);
  // Conflicts are pairs: those of fewer rules are the pairs whose rules both stay, so they are found once.
  const conflicts = findConflicts(kept);
  for (;;) {
    const g = assemble(task, kept, left, maxChars, conflicts);
    if (kept.length === 0 || guidanceText(g).length <= maxChars) return g;
    left.unshift(kept.pop()!);
  }
}

/** How many left-out rules the note names; the count says how many more. */
const OMITTED_NAMED = 5;

function assemble(task: string, kept: GuidanceItem[], left: GuidanceItem[], maxChars: number, conflicts: readonly GuidanceConflict[]): Guidance {
  const levels = LEVELS.map(({ scope, label }) => ({ scope, label, items: kept.filter((i) => i.datapack.scope === scope) }));
  const named = left.slice(0, OMITTED_NAMED).map((i) => `"${i.entry.title}"`);
  if (left.length > OMITTED_NAMED) named.push(`${left.length - OMITTED_NAMED} more`);
  const omitted = left.length
    ? {
        count: left.length,
        note: `${left.length} more rule${left.length === 1 ? '' : 's'} matched but did not fit in ${maxChars} characters (${named.join(', ')}); use search or get_entry to read them, or ask again with a larger maxChars.`,
      }
    : null;
  const stays = new Set(kept);
  return { task, levels, conflicts: conflicts.filter((c) => stays.has(c.prevails) && stays.has(c.overridden)), omitted };
}

/** How much of the task the answer's first line repeats: a long task must not spend the budget. */
const TASK_SHOWN = 80;

/** Guidance as the tool's text answer: what the agent reads, and what maxChars bounds. */
export function guidanceText(g: Guidance): string {
  const sections = g.levels.map((l, i) => `${i + 1}. ${l.label}:\n${l.items.length ? l.items.map((it) => `   - ${guidanceLine(it)}`).join('\n') : '   (none apply)'}`);
  const conflicts = g.conflicts.length ? `\nConflicts (the first named wins):\n${g.conflicts.map((c) => `- ${c.rule} [topic: ${c.topic}]`).join('\n')}` : '';
  const omitted = g.omitted ? `\n${g.omitted.note}` : '';
  const task = g.task.length > TASK_SHOWN ? `${g.task.slice(0, TASK_SHOWN - 1)}…` : g.task;
  return `Guidance for "${task}", strongest first:\n${sections.join('\n')}${conflicts}${omitted}`;
}

/**
 * Every rule that might apply: search's best topic matches for the task (its words, the project's
 * and the files' names as more words), and every rule that says where it applies, with whether the
 * task's files or project match it.
 */
export async function guidanceCandidates(deps: DomainDeps, access: Access, input: { task: string; files?: string[]; project?: string }): Promise<GuidanceCandidate[]> {
  const packs = await readableDatapacks(deps, access);
  const byId = new Map<string, Datapack>(packs.map((p) => [p.id, p]));
  const datapackIds = packs.map((p) => p.id);
  const files = input.files ?? [];
  const text = topicText(input);
  const [hits, annotated] = await Promise.all([deps.store.searchEntries({ datapackIds, text, kinds: RULE_KINDS, limit: SEARCH_DEPTH }), deps.store.annotatedEntries(datapackIds)]);
  const found = new Map<string, GuidanceCandidate>();
  const ref = (datapackId: string) => {
    const d = byId.get(datapackId)!;
    return { id: d.id, name: d.name, scope: d.scope };
  };
  const rules = annotated.filter((e) => RULE_KINDS.includes(e.kind) && byId.has(e.datapackId));
  const { titleWeight } = topicTuningFor(input, anyAnnotated(rules.map((entry) => ({ entry }))));
  const taskVectors = titleWeight ? wordVectors(input.task) : [];
  for (const { entry, score } of hits) found.set(entry.id, { entry, datapack: ref(entry.datapackId), score: score + titleWeight * titleCloseness(taskVectors, entry) });
  const context = new TaskContext(files, input.project);
  await context.prepare(rules.map((e) => e.applies));
  for (const entry of rules) {
    const c = found.get(entry.id) ?? { entry, datapack: ref(entry.datapackId), score: 0 };
    const reason = context.reason(entry.applies);
    if (reason) c.context = reason.startsWith('project: ') ? { type: 'project', name: reason.slice(9) } : { type: 'file', glob: reason.slice(6) };
    found.set(entry.id, c);
  }
  return [...found.values()];
}

/** What search is asked for a task's topic: its words, the project's name and the files' folder and file names. */
export function topicText(input: { task: string; files?: readonly string[]; project?: string }): string {
  return [input.task, input.project ?? '', ...(input.files ?? []).map(pathWords)].join(' ').trim();
}

/** A path's folder and file names as words ("src/refunds/refunds.service.ts" → "src refunds refunds service ts"). */
function pathWords(path: string): string {
  return path.replace(/[/\\._-]+/g, ' ');
}

/**
 * An item as one line of the tool's text: kind, title, id (for get_entry), reason and content.
 * Version and tags stay in the structured answer: every character here is spent from the budget.
 */
export function guidanceLine(item: GuidanceItem): string {
  const e = item.entry;
  return `[${e.kind}] ${e.title} (id ${e.id}) [${reasonText(item.reason)}]: ${e.content}`;
}

/** What an item costs of the budget: its line as the tool's text shows it, with the list marker and line break. */
function itemChars(item: GuidanceItem): number {
  return guidanceLine(item).length + LINE_FRAME;
}
/** "   - " before each item's line and the line break after it. */
const LINE_FRAME = 6;

/** Keeps items in order of reason strength until the budget is spent; the rest are reported, not silently dropped. */
function fitBudget(items: readonly GuidanceItem[], maxChars: number): { kept: GuidanceItem[]; left: GuidanceItem[] } {
  const kept: GuidanceItem[] = [];
  const left: GuidanceItem[] = [];
  let used = 0;
  for (const item of items) {
    const cost = itemChars(item);
    if (used + cost <= maxChars) {
      kept.push(item);
      used += cost;
    } else left.push(item);
  }
  return { kept, left };
}

/** A reason as one short phrase: "always", "file: migrations/**", "project: ledger", "topic 0.82". */
export function reasonText(reason: GuidanceReason): string {
  switch (reason.type) {
    case 'always':
      return 'always';
    case 'file':
      return `file: ${reason.glob}`;
    case 'project':
      return `project: ${reason.name}`;
    default:
      return `topic ${reason.score}`;
  }
}

/** An item as every adapter shows it. */
export interface PublicGuidanceItem {
  entry: PublicEntry;
  datapack: DatapackRef;
  /** "always", "file: <glob>", "project: <name>" or "topic". */
  reason: string;
  /** For a topic match, its score. */
  score?: number;
}

/** Guidance as every adapter shows it (MCP's structured content, the JSON API). */
export function guidanceView(g: Guidance) {
  const item = (i: GuidanceItem): PublicGuidanceItem => ({
    entry: publicEntry(i.entry),
    datapack: i.datapack,
    reason: i.reason.type === 'topic' ? 'topic' : reasonText(i.reason),
    ...(i.reason.type === 'topic' && { score: i.reason.score }),
  });
  return {
    task: g.task,
    levels: g.levels.map((l) => ({ scope: l.scope, label: l.label, items: l.items.map(item) })),
    conflicts: g.conflicts.map((c) => ({ topic: c.topic, prevails: item(c.prevails), overridden: item(c.overridden), rule: c.rule })),
    omitted: g.omitted,
  };
}

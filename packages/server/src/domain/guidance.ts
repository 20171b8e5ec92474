import { z } from 'zod';
import type { Datapack, Entry, Scope } from '../store/types.js';
import type { Access } from './access.js';
import { TaskContext, taskContextInput } from './applies.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { type DatapackRef, type PublicEntry, publicEntry } from './entry-views.js';
import { findConflicts, type GuidanceConflict } from './guidance-conflicts.js';
import { RuleIndex, topicSignals } from './guidance-rank.js';
import { anyAnnotated, type GuidanceCandidate, type GuidanceReason, type Selected, type Selection, selectGuidance, type TopicTuning, topicTuningFor } from './guidance-select.js';
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
  task: z.string().trim().min(1).max(2000).describe('The task, in plain words'),
  ...taskContextInput,
  maxChars: z.number().int().min(500).max(50_000).default(DEFAULT_MAX_CHARS).describe('Answer budget in characters'),
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
/** How many of the newest rules the rulebook's own ranking reads; older ones are found by search. */
const RULEBOOK_DEPTH = 5000;

/** One applicable entry, where it comes from and why it is given. */
export type GuidanceItem = Selected;

/** What applies to a task, level by level, with the conflicts between its rules and what did not fit. */
export interface Guidance {
  task: string;
  levels: { scope: Scope; label: string; items: GuidanceItem[] }[];
  conflicts: GuidanceConflict[];
  /** Rules that applied but did not fit in maxChars (weakest reasons first left out), and how to see them. */
  omitted: { count: number; note: string } | null;
  /** The next candidates, one line each, for the agent to open if they apply (those left out of the budget first). */
  mayAlsoApply: GuidanceItem[];
  /** How many more candidates matched some of the task's words beyond those named. */
  more: number;
}

/** Finds what applies to a task in every readable datapack and orders it by precedence. */
export async function getGuidance(deps: DomainDeps, access: Access, raw: z.input<typeof guidanceInput>, tuning?: TopicTuning): Promise<Guidance> {
  const input = parse(guidanceInput, raw);
  const candidates = await guidanceCandidates(deps, access, input);
  return fitAnswer(input.task, selectGuidance(candidates, tuning ?? topicTuningFor(input, anyAnnotated(candidates))), input.maxChars);
}

/** How many pointers the answer names at most. */
export const MAY_ALSO_APPLY = 10;

/**
 * The answer with as many of the selected rules, strongest reasons first, as fit in maxChars with
 * its headings, conflicts and notes, then as many pointers to what may also apply as still fit
 * (rules that did not fit in full first): the whole text, not only the rules.
 */
export function fitAnswer(task: string, selection: Selection, maxChars: number): Guidance {
  const { kept, left } = fitBudget(selection.given, maxChars);
  // Conflicts are pairs: those of fewer rules are the pairs whose rules both stay, so they are found once.
  const conflicts = findConflicts(kept);
  const build = (n: number) => {
    const all = [...left, ...selection.mayAlsoApply];
    const shown = all.slice(0, n);
    return assemble(task, kept, left, maxChars, conflicts, shown, selection.more + all.length - shown.length);
  };
  for (;;) {
    for (let n = MAY_ALSO_APPLY; n >= 0; n--) {
      const g = build(n);
      if (guidanceText(g).length <= maxChars) return g;
    }
    if (kept.length === 0) return build(0);
    left.unshift(kept.pop()!);
  }
}

/** How many left-out rules the note names; the count says how many more. */
const OMITTED_NAMED = 5;

function assemble(task: string, kept: GuidanceItem[], left: GuidanceItem[], maxChars: number, conflicts: readonly GuidanceConflict[], mayAlsoApply: GuidanceItem[], more: number): Guidance {
  const levels = LEVELS.map(({ scope, label }) => ({ scope, label, items: kept.filter((i) => i.datapack.scope === scope) }));
  // Those named below as pointers are not named twice.
  const pointed = new Set(mayAlsoApply);
  const unnamed = left.filter((i) => !pointed.has(i));
  const named = unnamed.slice(0, OMITTED_NAMED).map((i) => `"${i.entry.title}"`);
  if (unnamed.length > OMITTED_NAMED) named.push(`${unnamed.length - OMITTED_NAMED} more`);
  const where = named.length ? ` (${named.join(', ')})` : unnamed.length < left.length ? ' (named below)' : '';
  const omitted = left.length
    ? {
        count: left.length,
        note: `${left.length} more rule${left.length === 1 ? '' : 's'} matched but did not fit in ${maxChars} characters${where}; use get_entry or search to read them, or ask again with a larger maxChars.`,
      }
    : null;
  const stays = new Set(kept);
  return { task, levels, conflicts: conflicts.filter((c) => stays.has(c.prevails) && stays.has(c.overridden)), omitted, mayAlsoApply, more };
}

/** How much of the task the answer's first line repeats: a long task must not spend the budget. */
const TASK_SHOWN = 80;

/** Guidance as the tool's text answer: what the agent reads, and what maxChars bounds. */
export function guidanceText(g: Guidance): string {
  const sections = g.levels.map((l, i) => `${i + 1}. ${l.label}:\n${l.items.length ? l.items.map((it) => `   - ${guidanceLine(it)}`).join('\n') : '   (none apply)'}`);
  const conflicts = g.conflicts.length ? `\nConflicts (the first named wins):\n${g.conflicts.map((c) => `- ${c.rule} [topic: ${c.topic}]`).join('\n')}` : '';
  const omitted = g.omitted ? `\n${g.omitted.note}` : '';
  const task = g.task.length > TASK_SHOWN ? `${g.task.slice(0, TASK_SHOWN - 1)}…` : g.task;
  return `Guidance for "${task}", strongest first:\n${sections.join('\n')}${conflicts}${omitted}${mayAlsoApplyText(g)}`;
}

/** The pointers as the text shows them: one line each, and how many more. */
function mayAlsoApplyText(g: Guidance): string {
  if (g.mayAlsoApply.length === 0 && g.more === 0) return '';
  const lines = g.mayAlsoApply.map((i) => `- ${pointerLine(i)}`);
  const more = g.more ? `${g.mayAlsoApply.length ? '' : '- '}${g.more} more rule${g.more === 1 ? '' : 's'} matched some of the task's words: search for them if needed.` : '';
  const head = g.mayAlsoApply.length ? '\nMay also apply (open with get_entry if it applies):\n' : '\n';
  return `${head}${[...lines, ...(more ? [g.mayAlsoApply.length ? `(${more})` : more] : [])].join('\n')}`;
}

/** A pointer as the text shows it: title, id and level (its `when` is in the structured answer: every character here is spent from the budget). */
export function pointerLine(item: GuidanceItem): string {
  return `${item.entry.title} (id ${item.entry.id}, ${item.datapack.scope})`;
}

/**
 * Every rule that might apply, with its topic evidence: the rulebook's own ranking of the caller's
 * rules (their words and `when` against the task, its concerns and its context), search's best
 * matches for the task, and every rule that says where it applies, with whether the task's files
 * or project match it.
 */
export async function guidanceCandidates(deps: DomainDeps, access: Access, input: { task: string; files?: string[]; project?: string; concerns?: string[] }): Promise<GuidanceCandidate[]> {
  const packs = await readableDatapacks(deps, access);
  const byId = new Map<string, Datapack>(packs.map((p) => [p.id, p]));
  const datapackIds = packs.map((p) => p.id);
  const files = input.files ?? [];
  const concerns = input.concerns ?? [];
  const text = [topicText(input), ...concerns].join(' ').trim();
  const [hits, annotated, rulebook] = await Promise.all([
    deps.store.searchEntries({ datapackIds, text, kinds: RULE_KINDS, limit: SEARCH_DEPTH }),
    deps.store.annotatedEntries(datapackIds),
    deps.store.ruleEntries(datapackIds, RULE_KINDS, RULEBOOK_DEPTH),
  ]);
  const ref = (datapackId: string) => {
    const d = byId.get(datapackId)!;
    return { id: d.id, name: d.name, scope: d.scope };
  };
  const rules = new Map<string, Entry>();
  for (const e of [...rulebook, ...annotated]) if (RULE_KINDS.includes(e.kind) && byId.has(e.datapackId)) rules.set(e.id, e);
  const signals = topicSignals(indexOf(rulebook, rules), { task: input.task, concerns, context: contextWords(input) });
  const bestHit = Math.max(0, ...hits.map((h) => h.score));
  const searchScore = new Map(hits.map((h) => [h.entry.id, bestHit > 0 ? h.score / bestHit : 0]));
  for (const { entry } of hits) if (!rules.has(entry.id) && byId.has(entry.datapackId)) rules.set(entry.id, entry);
  const context = new TaskContext(files, input.project);
  await context.prepare([...rules.values()].map((e) => e.applies));
  const withTitles = topicTuningFor(input, anyAnnotated([...rules.values()].map((entry) => ({ entry })))).weights.title > 0;
  const taskVectors = withTitles ? wordVectors(input.task) : [];
  const found: GuidanceCandidate[] = [];
  for (const entry of rules.values()) {
    const own = signals.get(entry.id);
    const c: GuidanceCandidate = {
      entry,
      datapack: ref(entry.datapackId),
      signals: { text: own?.text ?? 0, concern: own?.concern ?? 0, search: searchScore.get(entry.id) ?? 0, title: withTitles ? titleCloseness(taskVectors, entry) : 0 },
    };
    const reason = context.reason(entry.applies);
    if (reason) c.context = reason.startsWith('project: ') ? { type: 'project', name: reason.slice(9) } : { type: 'file', glob: reason.slice(6) };
    found.push(c);
  }
  return found;
}

/** The rulebook's index, built once per state of the rules (the store hands back the same array while they are unchanged). */
const indexes = new WeakMap<readonly Entry[], RuleIndex>();

function indexOf(rulebook: readonly Entry[], rules: Map<string, Entry>): RuleIndex {
  // Annotated rules beyond the rulebook's depth join it; then the index is for this request alone.
  if (rules.size > rulebook.length) return new RuleIndex([...rules.values()]);
  let index = indexes.get(rulebook);
  if (!index) {
    index = new RuleIndex(rulebook);
    indexes.set(rulebook, index);
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
    mayAlsoApply: g.mayAlsoApply.map(pointerView),
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
}

function pointerView(i: GuidanceItem): GuidancePointer {
  const when = i.entry.applies?.when;
  return { id: i.entry.id, title: i.entry.title, level: i.datapack.scope, datapack: i.datapack, ...(when && { when }), score: Math.round(i.score * 1000) / 1000 };
}

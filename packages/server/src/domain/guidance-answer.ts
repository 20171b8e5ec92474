import type { BoundedCache } from '../cache/bounded-cache.js';
import type { Scope } from '../store/types.js';
import { findConflicts, type GuidanceConflict, type RuleVectors } from './guidance-conflicts.js';
import type { GuidanceReason, Selected, Selection } from './guidance-select.js';

/** Precedence, strongest first: organization policies, then team standards, then personal preferences. */
export const LEVELS = [
  { scope: 'organization', label: 'Organization policies', kind: 'policy' },
  { scope: 'team', label: 'Team standards', kind: 'standard' },
  { scope: 'personal', label: 'Personal preferences', kind: 'preference' },
] as const satisfies readonly { scope: Scope; label: string; kind: string }[];

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
  /** The day (YYYY-MM-DD, UTC) the answer was made for: rules past their review-by date are flagged in the view. */
  today?: string;
}

/** How many pointers the answer names at most. */
export const MAY_ALSO_APPLY = 10;

/**
 * The answer with as many of the selected rules, strongest reasons first, as fit in maxChars with
 * its headings, conflicts and notes, then as many pointers to what may also apply as still fit
 * (rules that did not fit in full first): the whole text, not only the rules.
 */
export function fitAnswer(
  task: string,
  selection: Selection,
  maxChars: number,
  ruleVectors: BoundedCache<string, RuleVectors>,
): Guidance {
  const { kept, left } = fitBudget(selection.given, maxChars);
  // Conflicts are pairs: those of fewer rules are the pairs whose rules both stay, so they are found once.
  const conflicts = findConflicts(kept, ruleVectors);
  const build = (n: number) => {
    const all = [...left, ...selection.mayAlsoApply];
    const shown = all.slice(0, n);
    return assemble(task, kept, left, maxChars, conflicts, shown, selection.more + all.length - shown.length);
  };
  for (;;) {
    // Not by halving: pointers named below leave the note about what did not fit, so more of them can make the text shorter.
    for (let n = Math.min(MAY_ALSO_APPLY, left.length + selection.mayAlsoApply.length); n >= 0; n--) {
      const g = build(n);
      if (guidanceText(g).length <= maxChars) return g;
    }
    if (kept.length === 0) return build(0);
    left.unshift(kept.pop()!);
  }
}

/** How many left-out rules the note names; the count says how many more. */
const OMITTED_NAMED = 5;

function assemble(
  task: string,
  kept: GuidanceItem[],
  left: GuidanceItem[],
  maxChars: number,
  conflicts: readonly GuidanceConflict[],
  mayAlsoApply: GuidanceItem[],
  more: number,
): Guidance {
  const levels = LEVELS.map(({ scope, label }) => ({
    scope,
    label,
    items: kept.filter((i) => i.datapack.scope === scope),
  }));
  // Those named below as pointers are not named twice.
  const pointed = new Set(mayAlsoApply);
  const unnamed = left.filter((i) => !pointed.has(i));
  const named = unnamed.slice(0, OMITTED_NAMED).map((i) => `"${i.entry.title}"`);
  if (unnamed.length > OMITTED_NAMED) named.push(`${unnamed.length - OMITTED_NAMED} more`);
  const where = named.length ? ` (${named.join(', ')})` : unnamed.length < left.length ? ' (named below)' : '';
  const omitted = left.length
    ? {
        count: left.length,
        note: `${left.length} more rule${left.length === 1 ? '' : 's'} matched but did not fit in ${maxChars} characters${where}: read them with get_entry or search, or ask with a larger maxChars.`,
      }
    : null;
  const stays = new Set(kept);
  return {
    task,
    levels,
    conflicts: conflicts.filter((c) => stays.has(c.prevails) && stays.has(c.overridden)),
    omitted,
    mayAlsoApply,
    more,
  };
}

/**
 * Guidance as the tool's text answer: what the agent reads, and what maxChars bounds. Every
 * character is spent from the budget, so the text carries what a model acts on (the rules, their
 * level and why each is given) and leaves the task (the agent knows it), ids, versions and scores
 * to the structured answer, but for the pointers, which are there to be opened.
 */
export function guidanceText(g: Guidance): string {
  const sections = LEVELS.flatMap(({ scope }, i) => {
    const level = g.levels.find((l) => l.scope === scope);
    return level?.items.length
      ? [`${i + 1}. ${level.label}:\n${level.items.map((it) => `- ${guidanceLine(it)}`).join('\n')}`]
      : [];
  });
  const rules = sections.length ? sections.join('\n') : 'No rule applies.';
  const conflicts = g.conflicts.length
    ? `\nConflicts (the first named wins):\n${g.conflicts.map((c) => `- ${c.rule} [topic: ${c.topic}]`).join('\n')}`
    : '';
  // When every rule that did not fit is among the pointers, their heading says so and the note is not repeated.
  const omitted = g.omitted && !allPointed(g) ? `\n${g.omitted.note}` : '';
  return `Guidance, strongest first:\n${rules}${conflicts}${omitted}${mayAlsoApplyText(g)}`;
}

function allPointed(g: Guidance): boolean {
  return !!g.omitted && g.mayAlsoApply.length >= g.omitted.count;
}

/** The pointers as the text shows them: one line each, and how many more. */
function mayAlsoApplyText(g: Guidance): string {
  if (g.mayAlsoApply.length === 0 && g.more === 0) return '';
  const more = g.more ? `${g.more} more matched some of the task's words: search if needed.` : '';
  if (g.mayAlsoApply.length === 0) return `\n${more}`;
  const lines = g.mayAlsoApply.map((i) => `- ${pointerLine(i)}`);
  const unfit =
    g.omitted && allPointed(g)
      ? `, ${g.omitted.count === 1 ? 'the first' : `the first ${g.omitted.count}`} matched but did not fit`
      : '';
  return `\nMay also apply${unfit} (open with get_entry if it applies):\n${[...lines, ...(more ? [`(${more})`] : [])].join('\n')}`;
}

/** A pointer as the text shows it: title and id (its level and `when` are in the structured answer). */
export function pointerLine(item: GuidanceItem): string {
  return `${item.entry.title} (${item.entry.id})`;
}

/**
 * A rule given in full as one line of the text: title, why it is given, and its content; its kind
 * only where the level's heading does not already say it (a team's decision, an organization's note).
 */
export function guidanceLine(item: GuidanceItem): string {
  const e = item.entry;
  const usual = LEVELS.find((l) => l.scope === item.datapack.scope)?.kind;
  return `${e.kind === usual ? '' : `[${e.kind}] `}${e.title} [${reasonText(item.reason)}]: ${e.content}`;
}

/** What an item costs of the budget: its line as the text shows it, with the list marker and line break. */
function itemChars(item: GuidanceItem): number {
  return guidanceLine(item).length + LINE_FRAME;
}
/** "- " before each item's line and the line break after it. */
const LINE_FRAME = 3;

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

/** A reason as one short phrase: "always", "file: migrations/**", "project: ledger", "topic" (its score is in the structured answer). */
export function reasonText(reason: GuidanceReason): string {
  switch (reason.type) {
    case 'always':
      return 'always';
    case 'file':
      return `file: ${reason.glob}`;
    case 'project':
      return `project: ${reason.name}`;
    default:
      return 'topic';
  }
}

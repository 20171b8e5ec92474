/** Guidance quality of one company's tasks: what applied, what came back. */

/** One asked task: the rules that apply (dataset ids), and what get_guidance returned. */
export interface AskedTask {
  id: string;
  applies: string[];
  returned: string[];
  /** Rules named in mayAlsoApply (dataset ids). */
  named: string[];
  /** Characters of the tool's text answer (what the agent reads). */
  chars: number;
  ms: number;
}

/** Rules of the company that the metrics must know about. */
export interface RuleFacts {
  /** Rules the admin marked "always": left out of precision. */
  always: ReadonlySet<string>;
  /** Rules a newer rule replaced. */
  replaced: ReadonlySet<string>;
}

/** Percentages are 0..100, one decimal. */
export interface GuidanceFigures {
  tasks: number;
  /** Applicable rules returned over applicable rules, pooled over tasks. */
  recall: number;
  /** Returned rules that apply over returned rules, both without "always" rules, pooled over tasks. */
  precision: number;
  /** Applicable rules given in full or named in mayAlsoApply over applicable rules, pooled over tasks. */
  recallInView: number;
  medianRules: number;
  medianChars: number;
  maxChars: number;
  /** Tasks shown at least one replaced rule. */
  tasksShownReplaced: number;
  p50Ms: number;
  p95Ms: number;
}

export function guidanceFigures(tasks: readonly AskedTask[], facts: RuleFacts): GuidanceFigures {
  let applicable = 0;
  let found = 0;
  let inView = 0;
  let returnedScored = 0;
  let relevantScored = 0;
  let shownReplaced = 0;
  for (const t of tasks) {
    const returned = new Set(t.returned);
    const applies = new Set(t.applies);
    applicable += applies.size;
    found += [...applies].filter((id) => returned.has(id)).length;
    const named = new Set(t.named);
    inView += [...applies].filter((id) => returned.has(id) || named.has(id)).length;
    const scored = [...returned].filter((id) => !facts.always.has(id));
    returnedScored += scored.length;
    relevantScored += scored.filter((id) => applies.has(id)).length;
    if ([...returned].some((id) => facts.replaced.has(id))) shownReplaced++;
  }
  return {
    tasks: tasks.length,
    recall: pct(found, applicable),
    precision: pct(relevantScored, returnedScored),
    recallInView: pct(inView, applicable),
    medianRules: percentile(
      tasks.map((t) => new Set(t.returned).size),
      0.5,
    ),
    medianChars: percentile(
      tasks.map((t) => t.chars),
      0.5,
    ),
    maxChars: Math.max(0, ...tasks.map((t) => t.chars)),
    tasksShownReplaced: shownReplaced,
    p50Ms: round1(
      percentile(
        tasks.map((t) => t.ms),
        0.5,
      ),
    ),
    p95Ms: round1(
      percentile(
        tasks.map((t) => t.ms),
        0.95,
      ),
    ),
  };
}

/** Splits tasks into k folds by position (task i goes to fold i mod k), so every run splits the same way. */
export function folds<T>(items: readonly T[], k: number): T[][] {
  const out: T[][] = Array.from({ length: k }, () => []);
  for (const [i, item] of items.entries()) out[i % k]!.push(item);
  return out;
}

/** The value at quantile q (0..1) by nearest rank; 0 for an empty list. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function pct(part: number, whole: number): number {
  return whole === 0 ? 0 : round1((part / whole) * 100);
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

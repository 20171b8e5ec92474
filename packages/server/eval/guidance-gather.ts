// What the in-process guidance harnesses (guidance-tune.ts, guidance-encoder.ts) share: each task's
// candidates gathered once as get_guidance gathers them, and a selection's answers scored per fold.
import { loadAccess } from '../src/domain/access.js';
import { DEFAULT_MAX_CHARS, guidanceCandidates } from '../src/domain/guidance.js';
import { type Guidance, guidanceText } from '../src/domain/guidance-answer.js';
import { type GuidanceCandidate, topicTuningFor } from '../src/domain/guidance-select.js';
import { connectMcpClient } from '../src/testing/mcp-client.js';
import type { TestCairn } from '../src/testing/test-cairn.js';
import { buildCompany, type Company, type People, saveRules } from './guidance-company.js';
import { type AskedTask, folds, type GuidanceFigures, guidanceFigures, type RuleFacts } from './guidance-metrics.js';

export type CompanyTask = Company['tasks'][number];

/** The parseArgs options both harnesses take. */
export const GATHER_OPTIONS = {
  plain: { type: 'boolean', default: false },
  'no-concerns': { type: 'boolean', default: false },
  'hold-out': { type: 'string', default: '5' },
  folds: { type: 'string', default: '5' },
  budget: { type: 'string', default: String(DEFAULT_MAX_CHARS) },
} as const;

/** GATHER_OPTIONS read: how many folds, the held-out one (from 0), the answer budget, and whether concerns are sent. */
export function gatherSettings(values: {
  plain: boolean;
  'no-concerns': boolean;
  'hold-out': string;
  folds: string;
  budget: string;
}): { k: number; held: number; budget: number; concerns: boolean } {
  return {
    k: Number(values.folds),
    held: Number(values['hold-out']) - 1,
    budget: Number(values.budget),
    concerns: !values.plain && !values['no-concerns'],
  };
}

/** The company's people and rules (without applies and when if `plain`); `ruleOf` maps an entry id to the rule's. */
export async function seedCompany(
  cairn: TestCairn,
  company: Company,
  plain: boolean,
): Promise<{ people: People; ruleOf: Map<string, string> }> {
  const people = await buildCompany(cairn, company);
  const admin = await connectMcpClient(cairn.mcpUrl, people.adminKey);
  const { idOf } = await saveRules(cairn, company, people, admin, !plain);
  await admin.close();
  return { people, ruleOf: new Map([...idOf].map(([rule, id]) => [id, rule])) };
}

/** One task's candidates, with what it was asked with. */
export interface GatheredTask {
  task: CompanyTask;
  /** The concerns sent (none in --plain and --no-concerns). */
  concerns: string[];
  candidates: GuidanceCandidate[];
  /** Whether get_guidance would use the words-only tuning (title closeness counts) for it. */
  wordsOnly: boolean;
  /** CPU milliseconds that gathering took. */
  gatherCpuMs: number;
}

/** Every task's candidates, asked as its user: with files, project and concerns unless `plain` or not `concerns`. */
export async function gatherTasks(
  cairn: TestCairn,
  company: Company,
  people: People,
  options: { plain: boolean; concerns: boolean },
): Promise<GatheredTask[]> {
  const gathered: GatheredTask[] = [];
  for (const task of company.tasks) {
    const access = await loadAccess(cairn.cairn.domain, {
      userId: people.userIds.get(task.user)!,
      client: null,
      via: 'cli',
      scope: 'read',
    });
    const context = options.plain ? {} : { files: task.files, project: task.project || undefined };
    const concerns = options.concerns ? (task.concerns ?? []) : [];
    const input = { task: task.task, ...context, ...(concerns.length && { concerns }) };
    const started = process.cpuUsage();
    const candidates = await guidanceCandidates(cairn.cairn.domain, access, input);
    const cpu = process.cpuUsage(started);
    const wordsOnly =
      topicTuningFor(
        input,
        candidates.some((c) => !!c.entry.applies),
      ).weights.title > 0;
    gathered.push({ task, concerns, candidates, wordsOnly, gatherCpuMs: (cpu.user + cpu.system) / 1000 });
  }
  return gathered;
}

/** What an answer gave in full and named, in the dataset's rule ids, as the metrics read it. */
export function askedTask(task: CompanyTask, answer: Guidance, ruleOf: ReadonlyMap<string, string>): AskedTask {
  return {
    id: task.id,
    applies: task.applies,
    returned: answer.levels.flatMap((l) => l.items).map((i) => ruleOf.get(i.entry.id)!),
    named: answer.mayAlsoApply.map((i) => ruleOf.get(i.entry.id)!),
    chars: guidanceText(answer).length,
    ms: 0,
  };
}

/** The figures on every fold but the held-out one, on that one, on all tasks and on each fold. */
export function foldFigures(
  asked: readonly AskedTask[],
  k: number,
  held: number,
  facts: RuleFacts,
): { train: GuidanceFigures; heldOut: GuidanceFigures; all: GuidanceFigures; folds: GuidanceFigures[] } {
  const parts = folds(asked, k);
  return {
    train: guidanceFigures(parts.filter((_, i) => i !== held).flat(), facts),
    heldOut: guidanceFigures(parts[held]!, facts),
    all: guidanceFigures(asked, facts),
    folds: parts.map((p) => guidanceFigures(p, facts)),
  };
}

import { z } from 'zod';
import type { Applies } from '../store/types.js';
import { type CompiledGlob, compileGlob, GlobError, globMatchesPath, MatchBudget } from './glob.js';

/** Bounds of what an entry may say about where it applies, and of the context a task gives. */
export const MAX_GLOBS = 20;
export const MAX_PROJECTS = 20;
export const MAX_GLOB_LENGTH = 200;
export const MAX_PROJECT_LENGTH = 100;
export const MAX_TASK_FILES = 50;
export const MAX_PATH_LENGTH = 500;
export const MAX_WHEN_LENGTH = 300;
export const MAX_CONCERNS = 12;
export const MAX_CONCERN_LENGTH = 80;

/** Why a glob cannot be used, or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  try {
    compileGlob(glob);
    return undefined;
  } catch (error) {
    if (error instanceof GlobError) return error.message;
    throw error;
  }
}

const glob = z
  .string()
  .trim()
  .min(1, 'a glob cannot be empty')
  .max(MAX_GLOB_LENGTH)
  .superRefine((value, ctx) => {
    const problem = globProblem(value);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: `"${value}" is not a valid glob (${problem}); write globs such as "migrations/**" or "**/*.tf"`,
      });
  });

const project = z.string().trim().min(1, 'a project name cannot be empty').max(MAX_PROJECT_LENGTH);

/** Input of an entry's applicability; each field is optional and an empty object means "by topic only". */
export const appliesInput = z
  .object({
    always: z.boolean().optional().describe('Give it with every task'),
    files: z.array(glob).max(MAX_GLOBS).optional().describe('File globs, e.g. "migrations/**"'),
    projects: z.array(project).max(MAX_PROJECTS).optional().describe('Repository names'),
    when: z
      .string()
      .trim()
      .min(1, 'when cannot be empty: leave it out instead')
      .max(MAX_WHEN_LENGTH)
      .optional()
      .describe('When it is needed, e.g. "Changing a database migration"'),
  })
  .strict();

/** The stored form: null when nothing beyond the topic was said. */
export function normalApplies(input: z.output<typeof appliesInput> | undefined | null): Applies | null {
  if (!input) return null;
  const files = [...new Set(input.files ?? [])];
  const projects = [...new Set(input.projects ?? [])];
  const when = input.when?.trim() || undefined;
  if (!input.always && files.length === 0 && projects.length === 0 && !when) return null;
  return { always: input.always === true, files, projects, ...(when && { when }) };
}

/** The context a task gives: paths the agent will read or change, and the repository or folder. */
export const taskContextInput = {
  files: z
    .array(z.string().trim().min(1).max(MAX_PATH_LENGTH))
    .max(MAX_TASK_FILES)
    .optional()
    .describe('Paths you will read or change'),
  project: z.string().trim().min(1).max(MAX_PROJECT_LENGTH).optional().describe('The repository name'),
  concerns: z
    .array(z.string().trim().min(1, 'a concern cannot be empty').max(MAX_CONCERN_LENGTH))
    .max(MAX_CONCERNS)
    .optional()
    .describe('4-8 short phrases for what the work touches'),
};

/**
 * How many matching steps one request may spend on its rules' globs: some 20 ms of CPU. An ordinary
 * rulebook spends a small fraction of it; what a hostile or careless glob would cost beyond it is
 * not spent (its rule is then not given for its files), and it is logged.
 */
export const GLOB_STEPS_PER_REQUEST = 2_000_000;
/** Matching gives other requests a turn of the event loop this often (some 2 ms of work). */
const STEPS_BETWEEN_TURNS = 20_000;
/** What compiling a glob costs, in matching steps per character (measured: about the same time). */
const COMPILE_STEPS_PER_CHARACTER = 10;

/** Why entries' applicability matches one task's files or project: paths are split once, each glob matched once. */
export class TaskContext {
  readonly budget: MatchBudget;
  private readonly paths: string[][];
  private readonly project: string | undefined;
  private readonly globs = new Map<string, boolean>();
  /** Globs that could not be compiled (stored before a rule of syntax changed) or whose matching the budget cut short. */
  readonly unmatched = new Set<string>();

  constructor(files: readonly string[], project: string | undefined, steps = GLOB_STEPS_PER_REQUEST) {
    this.paths = [...new Set(files)].map(pathSegments);
    this.project = project?.toLowerCase();
    this.budget = new MatchBudget(steps);
  }

  /**
   * Matches every glob of these entries, cheapest first, so that a costly glob spends what is left of
   * the budget after every other rule's globs were matched, not before.
   */
  async prepare(appliesList: readonly (Applies | null | undefined)[]): Promise<void> {
    if (this.paths.length === 0) return;
    const compiled: CompiledGlob[] = [];
    // Compiling is work too, counted for the turns it gives other requests but not against the budget.
    let compiling = 0;
    let yieldAt = STEPS_BETWEEN_TURNS;
    const turn = async () => {
      if (this.budget.used + compiling < yieldAt) return;
      await new Promise((resolve) => setImmediate(resolve));
      yieldAt = this.budget.used + compiling + STEPS_BETWEEN_TURNS;
    };
    for (const applies of appliesList) {
      for (const g of applies?.files ?? []) {
        if (this.globs.has(g)) continue;
        this.globs.set(g, false);
        compiling += g.length * COMPILE_STEPS_PER_CHARACTER;
        await turn();
        try {
          compiled.push(compileGlob(g));
        } catch {
          this.unmatched.add(g);
        }
      }
    }
    compiled.sort((a, b) => a.weight - b.weight);
    for (const glob of compiled) {
      await turn();
      if (this.budget.spent) {
        this.unmatched.add(glob.source);
        continue;
      }
      this.globs.set(
        glob.source,
        this.paths.some((p) => globMatchesPath(glob, p, this.budget)),
      );
      if (this.budget.spent) this.unmatched.add(glob.source);
    }
  }

  /**
   * Why an entry's applicability matches the task's files or project, or undefined; its globs must have
   * been prepared. A rule with both files and projects is scoped to those files in those projects: a
   * task that names files must touch a matching one (in one of the projects, if it names a project);
   * a task that names only its project gets it on the project alone, since which files it touches is
   * not known.
   */
  reason(applies: Applies | null | undefined): string | undefined {
    if (!applies) return undefined;
    const inProject = this.project ? applies.projects.find((p) => p.toLowerCase() === this.project) : undefined;
    const file = applies.files.find((g) => this.globs.get(g));
    if (applies.files.length > 0 && applies.projects.length > 0 && this.paths.length > 0) {
      if (!file || (this.project && !inProject)) return undefined;
      return `file: ${file}`;
    }
    if (inProject) return `project: ${inProject}`;
    return file ? `file: ${file}` : undefined;
  }
}

/** Why an entry's applicability matches a task's files or project, or undefined (one entry: see TaskContext for many). */
export async function contextReason(
  applies: Applies | null,
  files: readonly string[],
  project: string | undefined,
): Promise<string | undefined> {
  const context = new TaskContext(files, project);
  await context.prepare([applies]);
  return context.reason(applies);
}

/**
 * A path's segments: agents send paths relative to where they stand or absolute ones, and a rule's
 * globs are relative to a repository's root, so a glob matches any tail of the path at a folder
 * boundary (`/home/ana/ledger/migrations/1.sql` is matched as `migrations/1.sql` too).
 */
function pathSegments(path: string): string[] {
  return path
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
}

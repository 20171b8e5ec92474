import picomatch from 'picomatch';
import { z } from 'zod';
import type { Applies } from '../store/types.js';

/** Bounds of what an entry may say about where it applies, and of the context a task gives. */
export const MAX_GLOBS = 20;
export const MAX_PROJECTS = 20;
export const MAX_GLOB_LENGTH = 200;
export const MAX_PROJECT_LENGTH = 100;
export const MAX_TASK_FILES = 50;
export const MAX_PATH_LENGTH = 500;

// dot: `.github/**` and `**/.nvmrc` match; strictBrackets: an unclosed bracket or brace is an error
// to report, not a literal to match. A glob without a slash matches file names (see matcher).
const GLOB_OPTIONS = { dot: true, strictBrackets: true } as const;

/** Why a glob cannot be used, or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  try {
    picomatch.makeRe(glob, GLOB_OPTIONS);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const glob = z
  .string()
  .trim()
  .min(1, 'a glob cannot be empty')
  .max(MAX_GLOB_LENGTH)
  .superRefine((value, ctx) => {
    const problem = globProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `"${value}" is not a valid glob (${problem}); write globs such as "migrations/**" or "**/*.tf"` });
  });

const project = z.string().trim().min(1, 'a project name cannot be empty').max(MAX_PROJECT_LENGTH);

/** Input of an entry's applicability; each field is optional and an empty object means "by topic only". */
export const appliesInput = z
  .object({
    always: z.boolean().optional().describe('Give this entry with every task (a rule every agent must always know)'),
    files: z.array(glob).max(MAX_GLOBS).optional().describe('Globs of the files it is about, e.g. "migrations/**", "**/*.tf": given whenever a task touches a matching file'),
    projects: z.array(project).max(MAX_PROJECTS).optional().describe('Repositories or folders it is about, e.g. "ledger-service": given for tasks in them'),
  })
  .strict()
  .describe('When the entry applies besides its topic; rules scoped to files or projects are given for other tasks only when the task is about them');

/** The stored form: null when nothing beyond the topic was said. */
export function normalApplies(input: z.output<typeof appliesInput> | undefined | null): Applies | null {
  if (!input) return null;
  const files = [...new Set(input.files ?? [])];
  const projects = [...new Set(input.projects ?? [])];
  if (!input.always && files.length === 0 && projects.length === 0) return null;
  return { always: input.always === true, files, projects };
}

/** The context a task gives: paths the agent will read or change, and the repository or folder. */
export const taskContextInput = {
  files: z
    .array(z.string().trim().min(1).max(MAX_PATH_LENGTH))
    .max(MAX_TASK_FILES)
    .optional()
    .describe('Paths you will read or change (relative to the repository, e.g. "migrations/0042_add_vat.sql")'),
  project: z.string().trim().min(1).max(MAX_PROJECT_LENGTH).optional().describe('The repository or folder you work in (its name, e.g. "ledger-service")'),
};

/** Why an entry's applicability matches a task's files or project, or undefined. */
export function contextReason(applies: Applies | null, files: readonly string[], project: string | undefined): string | undefined {
  if (!applies) return undefined;
  if (project) {
    const wanted = project.toLowerCase();
    const hit = applies.projects.find((p) => p.toLowerCase() === wanted);
    if (hit) return `project: ${hit}`;
  }
  for (const g of applies.files) {
    const match = matcher(g);
    if (files.some((f) => pathSuffixes(f).some((p) => match(p)))) return `file: ${g}`;
  }
  return undefined;
}

const matchers = new Map<string, (path: string) => boolean>();

function matcher(glob: string): (path: string) => boolean {
  let m = matchers.get(glob);
  if (!m) {
    // As in .gitignore, `*.tf` means a file name anywhere (picomatch's own basename option also
    // changed how globs with slashes matched, so it is done here).
    const match = picomatch(glob, GLOB_OPTIONS);
    m = glob.includes('/') ? match : (path: string) => match(path.slice(path.lastIndexOf('/') + 1));
    // Globs come from stored entries: keep a bounded number compiled.
    if (matchers.size >= 5_000) matchers.clear();
    matchers.set(glob, m);
  }
  return m;
}

/**
 * A path and each of its tails at a folder boundary: agents send paths relative to where they
 * stand or absolute ones, and a rule's globs are relative to a repository's root, so
 * `/home/ana/ledger/migrations/1.sql` is matched as `migrations/1.sql` too.
 */
function pathSuffixes(path: string): string[] {
  const parts = path.replace(/\\/g, '/').replace(/^\.\//, '').split('/').filter(Boolean);
  return parts.map((_, i) => parts.slice(i).join('/'));
}

import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** The repository a hook runs in: its root folder and the project name rules are scoped to. */
export interface Repository {
  /** The folder holding `.git`, or the working directory when there is none. */
  root: string;
  /** The origin remote's last path segment without `.git`, else the root folder's name. */
  project: string;
}

/** How many folders up a `.git` is looked for: deep enough for any checkout, never a walk to the root of a slow mount. */
const MAX_DEPTH = 40;

/**
 * Finds the repository of `cwd` by reading `.git` itself (no `git` process: a hook pays for every
 * one it starts). A worktree's or submodule's `.git` file points at its git folder; the remotes
 * live in the common folder's `config`.
 */
export function repositoryOf(cwd: string): Repository {
  let dir = resolve(cwd);
  for (let i = 0; i < MAX_DEPTH; i++) {
    const dotGit = join(dir, '.git');
    const gitDir = gitDirOf(dotGit, dir);
    if (gitDir) return { root: dir, project: remoteName(gitDir) ?? basename(dir) };
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { root: resolve(cwd), project: basename(resolve(cwd)) };
}

/** A file path as the repository names it ("migrations/0042.sql"), or undefined when it lies outside. */
export function repositoryPath(repo: Repository, cwd: string, file: string): string | undefined {
  const absolute = isAbsolute(file) ? file : resolve(cwd, file);
  const rel = relative(repo.root, absolute);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

function gitDirOf(dotGit: string, dir: string): string | undefined {
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    return pointer ? resolve(dir, pointer) : undefined;
  } catch {
    return undefined;
  }
}

/** The last path segment of the `origin` remote's URL (else of the first remote), without `.git`. */
function remoteName(gitDir: string): string | undefined {
  const config = readText(join(commonDir(gitDir), 'config'));
  if (!config) return undefined;
  const remotes = [...config.matchAll(/^\s*\[remote\s+"([^"]+)"\]([^[]*)/gm)].map((m) => ({
    name: m[1],
    url: /^\s*url\s*=\s*(.+?)\s*$/m.exec(m[2] ?? '')?.[1],
  }));
  const url = (remotes.find((r) => r.name === 'origin' && r.url) ?? remotes.find((r) => r.url))?.url;
  if (!url) return undefined;
  const last = url
    .replace(/[/\\]+$/, '')
    .split(/[/\\:]/)
    .pop()
    ?.replace(/\.git$/i, '');
  return last || undefined;
}

/** A linked worktree's git folder names the main one (holding `config`) in its `commondir` file. */
function commonDir(gitDir: string): string {
  const pointer = readText(join(gitDir, 'commondir'))?.trim();
  return pointer ? resolve(gitDir, pointer) : gitDir;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

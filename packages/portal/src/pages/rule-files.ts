// Which files of a repository (a folder or a zip) the rules import uploads, and why the others are not read.

/** The files that may be a tool's rules (the server decides; this only keeps the upload small). */
const CANDIDATE = /(\.mdc|\.md|\.txt|\/\.clinerules)$/;
/** The server's limit for one file. */
export const MAX_FILE_BYTES = 256 * 1024;

export interface RuleFile {
  path: string;
  content: string;
}
/** A file that was not read, shown in the dialog with why (never dropped silently). */
export interface NotRead {
  path: string;
  reason: string;
}
export interface RuleFiles {
  files: RuleFile[];
  notRead: NotRead[];
  /** The default project: the repository's top folder (e.g. `acme-api-main` from GitHub's Download ZIP). */
  project: string;
}

/** A file of a folder or an archive, by its full path (top folder included) and its size in bytes. */
export interface Listed {
  path: string;
  size: number;
}
export interface Choice<T extends Listed> {
  project: string;
  /** The candidate files to read, each with its path below the top folder. */
  chosen: { item: T; path: string }[];
  notRead: NotRead[];
}

export const TOO_LARGE = 'larger than 256 KiB, the most the import takes for one file';

/**
 * Chooses the candidate rule files of a listing: the single top folder is stripped (and names the project),
 * node_modules and files that cannot be rules are left out, unsafe names and oversized files are listed.
 * `fallbackProject` names the project when the files share no top folder (a zip made inside the repository).
 */
export function ruleFilesFrom<T extends Listed>(items: T[], fallbackProject = ''): Choice<T> {
  const notRead: NotRead[] = [];
  const safe: T[] = [];
  for (const item of items) {
    const unsafe = unsafeName(item.path);
    if (unsafe) notRead.push({ path: visible(item.path), reason: unsafe });
    else if (!item.path.endsWith('/')) safe.push(item);
  }
  const root = topFolder(safe.map((i) => i.path));
  const chosen: Choice<T>['chosen'] = [];
  const seen = new Set<string>();
  for (const item of safe) {
    const path = root ? item.path.slice(root.length + 1) : item.path;
    if (!CANDIDATE.test(`/${path}`) || /(^|\/)node_modules\//.test(path)) continue;
    if (item.size > MAX_FILE_BYTES) notRead.push({ path, reason: TOO_LARGE });
    else if (seen.has(path)) notRead.push({ path, reason: 'a second file with this name; the first was read' });
    else {
      seen.add(path);
      chosen.push({ item, path });
    }
  }
  return { project: root ?? fallbackProject, chosen, notRead };
}

/** Why a name is not read, or undefined: it must stay inside the repository and hold no NUL. */
export function unsafeName(path: string): string | undefined {
  if (path.includes('\0')) return 'its name has a NUL byte';
  if (path.startsWith('/')) return 'its name is an absolute path';
  if (path.startsWith('\\')) return 'its name starts with a backslash (a Windows root)';
  if (/^[A-Za-z]:/.test(path)) return 'its name starts with a drive letter';
  if (path.split(/[/\\]/).includes('..')) return 'its name climbs out of the repository (..)';
  return undefined;
}

/** The single folder every path is in, or undefined when they share none. */
function topFolder(paths: string[]): string | undefined {
  const first = paths[0]?.split('/')[0];
  if (first === undefined || paths.some((p) => !p.startsWith(`${first}/`))) return undefined;
  return first;
}

/** A name as it can be shown: control characters (NUL…) as `\x00`. */
export function visible(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what this shows
  return path.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A file's text, or why it is not read: it must be UTF-8 and hold no NUL byte (binary files). */
export function textOf(bytes: Uint8Array): { content: string } | { reason: string } {
  let content: string;
  try {
    content = utf8.decode(bytes);
  } catch {
    return { reason: 'not UTF-8 text' };
  }
  if (content.includes('\0')) return { reason: 'has NUL bytes: not a text file' };
  return { content };
}

/** Reads the chosen files, listing those that are not text. */
export async function readChosen<T extends Listed>(
  choice: Choice<T>,
  bytesOf: (item: T) => Uint8Array | Promise<Uint8Array>,
): Promise<RuleFiles> {
  const files: RuleFile[] = [];
  const notRead = [...choice.notRead];
  for (const { item, path } of choice.chosen) {
    const text = textOf(await bytesOf(item));
    if ('content' in text) files.push({ path, content: text.content });
    else notRead.push({ path, reason: text.reason });
  }
  return { files, notRead, project: choice.project };
}

/** A file of a folder the browser gave (its webkitRelativePath starts with the folder's name). */
export interface FolderFile {
  name: string;
  size: number;
  webkitRelativePath?: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The rule files of a folder chosen with the folder picker. */
export function ruleFilesOfFolder(list: FolderFile[]): Promise<RuleFiles> {
  const items = list.map((file) => ({ file, path: file.webkitRelativePath || file.name, size: file.size }));
  return readChosen(ruleFilesFrom(items), async ({ file }) => new Uint8Array(await file.arrayBuffer()));
}

import type { Applies, Entry } from '../../store/types.js';
import { fileSlug } from '../export-markdown.js';
import { generatedMark } from './rule-file.js';

/** The formats `cairn rules export` writes. */
export const EXPORT_FORMATS = ['agents', 'cursor', 'claude', 'copilot', 'kiro'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The kinds that are rules (what guidance gives); notes and decisions are not exported as rules. */
export const RULE_KINDS = ['policy', 'standard', 'preference'];

export interface RulesExport {
  files: { path: string; content: string }[];
  /** Rules the format cannot hold as they are, and why. */
  skipped: { title: string; id: string; reason: string }[];
  /** Rules written, but losing part of where they apply. */
  notes: string[];
}

/** Whether a rule is one of this project's: it applies everywhere, names the project, or names none. */
export function ruleOfProject(entry: Entry, project: string | undefined): boolean {
  if (!project) return true;
  const a = entry.applies;
  if (!a || a.always || a.projects.length === 0) return true;
  return a.projects.some((p) => p.toLowerCase() === project.toLowerCase());
}

const q = (s: string) => JSON.stringify(s);

/** Each rule as the tool's files, with its activation; projects are not written (the export is for one repository). */
export function exportRules(entries: readonly Entry[], format: ExportFormat): RulesExport {
  const out: RulesExport = { files: [], skipped: [], notes: [] };
  const names = new Set<string>();
  const fileName = (e: Entry, dir: string, ext: string) => {
    let name = fileSlug(e.title);
    if (names.has(`${dir}${name}`)) name = `${name}-${e.id.slice(-6).toLowerCase()}`;
    names.add(`${dir}${name}`);
    return `${dir}${name}${ext}`;
  };
  const body = (e: Entry) => `${generatedMark(e.id)}\n# ${e.title}\n\n${e.content}\n`;
  const withFront = (lines: string[], e: Entry) =>
    lines.length ? `---\n${lines.join('\n')}\n---\n${body(e)}` : body(e);
  const agents = new Map<string, Entry[]>();
  for (const e of [...entries].sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id))) {
    const a: Applies = e.applies ?? { always: false, files: [], projects: [] };
    const skip = (reason: string) => out.skipped.push({ title: e.title, id: e.id, reason });
    if (format === 'cursor') {
      const lines = a.always
        ? ['alwaysApply: true']
        : [
            ...(a.when ? [`description: ${q(a.when)}`] : []),
            ...(a.files.length ? ['globs:', ...a.files.map((g) => `  - ${q(g)}`)] : []),
            'alwaysApply: false',
          ];
      out.files.push({ path: fileName(e, '.cursor/rules/', '.mdc'), content: withFront(lines, e) });
    } else if (format === 'kiro') {
      const lines = a.always
        ? ['inclusion: always']
        : a.files.length
          ? [
              'inclusion: fileMatch',
              `fileMatchPattern: [${a.files.map(q).join(', ')}]`,
              ...(a.when ? [`description: ${q(a.when)}`] : []),
            ]
          : a.when
            ? ['inclusion: auto', `description: ${q(a.when)}`]
            : ['inclusion: manual'];
      out.files.push({ path: fileName(e, '.kiro/steering/', '.md'), content: withFront(lines, e) });
    } else if (format === 'copilot') {
      const lines = a.always
        ? ['applyTo: "**"']
        : [
            ...(a.files.length ? [`applyTo: ${q(a.files.join(','))}`] : []),
            ...(a.when ? [`description: ${q(a.when)}`] : []),
          ];
      if (!a.always && a.files.some((g) => g.includes(','))) skip('a glob holds a comma, which applyTo cannot say');
      else
        out.files.push({
          path: fileName(e, '.github/instructions/', '.instructions.md'),
          content: withFront(lines, e),
        });
    } else if (format === 'claude') {
      if (!a.always && a.files.length === 0) {
        skip(
          'Claude Code rules apply always or by paths; this one applies by topic or "when" only (try --format cursor or kiro)',
        );
        continue;
      }
      if (a.when && !a.always) out.notes.push(`"${e.title}": its "when" is not written (Claude Code rules have none)`);
      const lines = a.always ? [] : ['paths:', ...a.files.map((g) => `  - ${q(g)}`)];
      out.files.push({ path: fileName(e, '.claude/rules/', '.md'), content: withFront(lines, e) });
    } else {
      const folder = a.always ? '' : a.files.length === 1 && /^([^*?[{]+)\/\*\*$/.exec(a.files[0]!)?.[1];
      if (folder === undefined || folder === false || (!a.always && a.when)) {
        skip(
          'AGENTS.md applies to the whole repository or to one folder; this rule applies otherwise (try --format cursor or kiro)',
        );
        continue;
      }
      const list = agents.get(folder) ?? [];
      list.push(e);
      agents.set(folder, list);
    }
  }
  for (const [folder, list] of agents)
    out.files.push({
      path: folder ? `${folder}/AGENTS.md` : 'AGENTS.md',
      content: list.map(body).join('\n'),
    });
  return out;
}

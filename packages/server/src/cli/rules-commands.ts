import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { terminalSafe } from '@cairn/contract/terminal';
import { loadAccess } from '../domain/access.js';
import { listEntries } from '../domain/entries.js';
import { isExpired, today } from '../domain/lifecycle.js';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  exportRules,
  RULE_KINDS,
  ruleOfProject,
} from '../domain/rules-import/export.js';
import { parserFor, SKIPPED_FOLDERS } from '../domain/rules-import/formats.js';
import { importRules, type RuleFile, type RulesImportReport } from '../domain/rules-import/plan.js';
import { CairnError } from '../errors/cairn-error.js';
import type { Cairn } from '../runtime/open-cairn.js';
import type { Options } from './commands.js';

/** A rule file larger than this is reported, not read: no tool's rule is that long. */
const MAX_FILE_BYTES = 256 * 1024;
/** How deep the walk goes into a repository. */
const MAX_DEPTH = 12;

/** `cairn rules import DIR --datapack ID --user E [--project NAME] [--dry-run]`: a repository's rule files as rules. */
export async function rulesImport(cairn: Cairn, o: Options, args: string[]): Promise<void> {
  const dir = args[0];
  if (!dir)
    throw new CairnError(
      'invalid_input',
      'Name the repository to import: cairn rules import DIR --datapack ID --user E [--project NAME] [--dry-run].',
    );
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new CairnError('not_found', `${dir} is not a folder: pass the repository's root folder.`);
  const datapack = requiredFlag(o, 'datapack', 'the datapack (id or name) the rules go to');
  const access = await userAccess(cairn, requiredFlag(o, 'user', 'the email of the user the rules are saved as'));
  const project = typeof o.project === 'string' ? o.project : repositoryName(dir);
  const report = await importRules(cairn.domain, access, {
    datapack,
    project,
    files: readRuleFiles(dir),
    dryRun: o['dry-run'] === true,
  });
  process.stdout.write(describeRulesReport(report));
}

/** The rule files of a repository (every tool's), with paths relative to its root; symbolic links are not followed. */
export function readRuleFiles(root: string): RuleFile[] {
  const found: RuleFile[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (error) {
      found.push({
        path: rel || '.',
        content: '',
        problem: `the folder could not be read (${(error as Error).message})`,
      });
      return;
    }
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      const full = join(dir, name);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat || stat.isSymbolicLink()) continue;
      if (stat.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(name) && depth < MAX_DEPTH) walk(full, path, depth + 1);
        continue;
      }
      if (!stat.isFile() || !parserFor(path)) continue;
      if (stat.size > MAX_FILE_BYTES) {
        found.push({
          path,
          content: '',
          problem: `${stat.size} bytes is more than a rule file may be (${MAX_FILE_BYTES})`,
        });
        continue;
      }
      try {
        const content = readFileSync(full, 'utf8');
        found.push({ path, content });
      } catch (error) {
        found.push({ path, content: '', problem: `the file could not be read (${(error as Error).message})` });
      }
    }
  };
  walk(resolve(root), '', 0);
  return found;
}

/** The repository's name: the last segment of its origin remote, else its folder's name. */
export function repositoryName(dir: string): string {
  try {
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8');
    const origin = /\[remote "origin"\][^[]*?url\s*=\s*(\S+)/.exec(config);
    const last = origin?.[1]
      ?.replace(/\/+$/, '')
      .split(/[/:]/)
      .at(-1)
      ?.replace(/\.git$/, '');
    if (last) return last;
  } catch {
    // No git repository: the folder's name.
  }
  return basename(resolve(dir));
}

/** The report as the CLI prints it: one line per file, then the counts. */
export function describeRulesReport(r: RulesImportReport): string {
  const label = { create: 'create', update: 'update', unchanged: 'unchanged', not_mapped: 'not mapped' } as const;
  const lines = [
    r.dryRun
      ? `Dry run: nothing was written. Importing into "${terminalSafe(r.datapack.name)}" as project ${terminalSafe(r.project)} would give:`
      : `Imported into "${terminalSafe(r.datapack.name)}" as project ${terminalSafe(r.project)}:`,
  ];
  for (const p of r.rules) {
    const where = p.applies ? ` [${describeApplies(p.applies)}]` : '';
    const title = p.title ? ` "${terminalSafe(p.title)}"` : '';
    lines.push(`${label[p.action]}\t${terminalSafe(p.path)}${title}${where}`);
    for (const note of p.notes) lines.push(`\t  ${terminalSafe(note)}`);
  }
  const c = r.counts;
  lines.push(`Rules: ${c.create} created, ${c.update} updated, ${c.unchanged} unchanged, ${c.not_mapped} not mapped`);
  for (const m of r.missing)
    lines.push(
      `not in this folder\t"${terminalSafe(m.title)}" (${m.id}), imported earlier for ${terminalSafe(r.project)}: left as it is; delete it in Cairn if its file is gone`,
    );
  if (r.redacted.length)
    lines.push(`Secrets redacted on the way in: ${r.redacted.map((f) => `${f.rule} ×${f.count}`).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function describeApplies(a: NonNullable<RulesImportReport['rules'][number]['applies']>): string {
  const parts: string[] = [];
  if (a.always) parts.push('always');
  if (a.files.length) parts.push(`files: ${a.files.join(', ')}`);
  if (a.projects.length) parts.push(`projects: ${a.projects.join(', ')}`);
  if (a.when) parts.push(`when: ${a.when}`);
  return parts.join('; ');
}

export async function userAccess(cairn: Cairn, email: string) {
  const user = await cairn.store.findUserByEmail(email);
  if (!user) throw new CairnError('not_found', `No user with the email ${email}.`);
  return loadAccess(cairn.domain, { userId: user.id, client: 'cairn-cli', via: 'cli', scope: 'read-write' });
}

export function requiredFlag(o: Options, name: string, what: string): string {
  const value = o[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new CairnError('invalid_input', `--${name} is required: ${what}.`);
  return value;
}

/** `cairn rules export --datapack ID --user E --format F --out DIR [--project NAME]`: the datapack's rules as a tool's files. */
export async function rulesExport(cairn: Cairn, o: Options): Promise<void> {
  const format = o.format;
  if (typeof format !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(format))
    throw new CairnError(
      'invalid_input',
      `--format must be one of ${EXPORT_FORMATS.join(', ')} (got "${String(format ?? '').slice(0, 40)}").`,
    );
  const out = requiredFlag(o, 'out', 'the folder (a repository root) to write the rule files into');
  const datapack = requiredFlag(o, 'datapack', 'the datapack id whose rules are written');
  const access = await userAccess(cairn, requiredFlag(o, 'user', 'the email of a user who can read the datapack'));
  const project = typeof o.project === 'string' ? o.project : undefined;
  const entries = [];
  for (let offset = 0; ; offset += 200) {
    const page = await listEntries(cairn.domain, access, datapack, { limit: 200, offset });
    entries.push(...page);
    if (page.length < 200) break;
  }
  // What agents are no longer given (replaced or expired) is not written to a tool's files either.
  const day = today(cairn.domain);
  const rules = entries.filter(
    (e) => RULE_KINDS.includes(e.kind) && !e.replacedBy && !isExpired(e, day) && ruleOfProject(e, project),
  );
  const written = exportRules(rules, format as ExportFormat);
  // A file someone wrote by hand is never overwritten: only Cairn's own.
  for (const f of written.files) {
    const target = join(out, f.path);
    const existing = statSync(target, { throwIfNoEntry: false });
    if (existing && !readFileSync(target, 'utf8').includes('generated by Cairn'))
      throw new CairnError(
        'conflict',
        `${target} exists and Cairn did not write it; nothing was written. Import it first (cairn rules import), move it, or choose another --out.`,
      );
  }
  for (const f of written.files) {
    mkdirSync(dirname(join(out, f.path)), { recursive: true });
    writeFileSync(join(out, f.path), f.content);
  }
  const lines = [
    `Wrote ${written.files.length} files (${rules.length - written.skipped.length} rules) as ${format} to ${out}.`,
  ];
  for (const s of written.skipped) lines.push(`not exported\t"${terminalSafe(s.title)}" (${s.id}): ${s.reason}`);
  for (const n of written.notes) lines.push(`note\t${terminalSafe(n)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

import { createHash } from 'node:crypto';
import { redact } from '@cairn/contract/redaction';
import { z } from 'zod';
import { CairnError } from '../../errors/cairn-error.js';
import type { Applies, Datapack, Entry } from '../../store/types.js';
import type { Access } from '../access.js';
import {
  globProblem,
  MAX_GLOB_LENGTH,
  MAX_GLOBS,
  MAX_PROJECT_LENGTH,
  MAX_WHEN_LENGTH,
  normalApplies,
} from '../applies.js';
import { resolveDatapack } from '../datapacks.js';
import type { DomainDeps } from '../deps.js';
import { saveEntry, updateEntry } from '../entries.js';
import { parse } from '../parse-input.js';
import { parserFor } from './formats.js';
import { type ParsedRule, splitGenerated } from './rule-file.js';

/** Every imported rule carries this tag, and one `src-…` tag per repository file it came from. */
export const IMPORTED_TAG = 'imported-rule';
/** The kind imported rules get: a repository's rule file is the team's standard for its code. */
export const IMPORTED_KIND = 'standard';
const MAX_CONTENT = 20_000;
const MAX_TITLE = 200;
const MAX_TAGS = 20;
/** Files a single import takes at most (a repository's rules are tens, not thousands). */
export const MAX_IMPORT_FILES = 500;

export interface RuleFile {
  path: string;
  content: string;
  /** Why the file could not be read (the CLI's walk says so): it is reported, not imported. */
  problem?: string;
}

/** The JSON API's body: a repository's rule files as the portal or a script reads them. */
export const rulesImportInput = z
  .object({
    files: z
      .array(z.object({ path: z.string().trim().min(1).max(500), content: z.string().max(256 * 1024) }).strict())
      .min(1, 'send at least one file')
      .max(MAX_IMPORT_FILES),
    project: z.string().trim().min(1).max(MAX_PROJECT_LENGTH).describe('The repository name'),
    dryRun: z.boolean().default(false),
  })
  .strict();

/** importRules over the JSON API's body: checked before anything is read or written. */
export async function importRulesRequest(
  deps: DomainDeps,
  access: Access,
  datapack: string,
  raw: unknown,
): Promise<RulesImportReport> {
  const input = parse(rulesImportInput, raw);
  return importRules(deps, access, { datapack, ...input });
}

export type PlanAction = 'create' | 'update' | 'unchanged' | 'not_mapped';

/** What the import does (or, in a dry run, would do) with one file. */
export interface PlannedRule {
  path: string;
  action: PlanAction;
  format?: ParsedRule['format'];
  title?: string;
  applies?: Applies | null;
  /** The entry it creates (after writing), updates or leaves. */
  entryId?: string;
  /** What was not mapped, or why the file was not imported at all. */
  notes: string[];
}

export interface RulesImportReport {
  dryRun: boolean;
  project: string;
  datapack: { id: string; name: string };
  rules: PlannedRule[];
  counts: Record<PlanAction, number>;
  /** Rules imported earlier for this project whose file this import did not hold: left as they are. */
  missing: { id: string; title: string }[];
  redacted: { rule: string; count: number }[];
}

/** The project name a repository gives its rules: trimmed, bounded, refused when empty. */
export function checkProject(name: string): string {
  const project = name.trim();
  if (project === '' || project.length > MAX_PROJECT_LENGTH)
    throw new CairnError(
      'invalid_input',
      `The project name must be 1 to ${MAX_PROJECT_LENGTH} characters (got "${project.slice(0, 40)}"); pass --project NAME.`,
    );
  return project;
}

/** The tag that names one file of one repository, so importing it again finds its rule. */
export function sourceTag(project: string, path: string): string {
  return `src-${createHash('sha256').update(`${project.toLowerCase()}\n${path}`).digest('hex').slice(0, 16)}`;
}

interface Wanted {
  plan: PlannedRule;
  title: string;
  content: string;
  applies: Applies | null;
  tag: string;
  cairnId?: string;
  /** Tags of other files of this import holding the same rule. */
  extraTags: string[];
}

/**
 * Plans (and unless dryRun, writes) the import of a repository's rule files into a datapack: one
 * file is one rule; a rule already imported from the same file is updated, the same rule from
 * another repository gains that project; what cannot be mapped is in the report.
 */
export async function importRules(
  deps: DomainDeps,
  access: Access,
  input: { datapack: string; project: string; files: readonly RuleFile[]; dryRun: boolean },
): Promise<RulesImportReport> {
  const project = checkProject(input.project);
  if (input.files.length > MAX_IMPORT_FILES)
    throw new CairnError(
      'invalid_input',
      `${input.files.length} files is more than the ${MAX_IMPORT_FILES} one import takes; import the repository's rule folders one at a time.`,
    );
  const datapack = await resolveDatapack(deps, access, input.datapack);
  access.assertWrite(datapack);
  const redacted = new Map<string, number>();
  const clean = (s: string) => {
    const r = redact(s);
    for (const f of r.findings) redacted.set(f.rule, (redacted.get(f.rule) ?? 0) + f.count);
    return r.text;
  };
  const plans: PlannedRule[] = [];
  const wanted: Wanted[] = [];
  for (const file of [...input.files].sort((a, b) => a.path.localeCompare(b.path))) {
    const path = file.path.replace(/\\/g, '/').replace(/^\.?\//, '');
    const parse = parserFor(path);
    if (file.problem) {
      plans.push({ path, action: 'not_mapped', notes: [file.problem] });
      continue;
    }
    if (!parse) {
      plans.push({ path, action: 'not_mapped', notes: ['not a rule file of a tool Cairn reads'] });
      continue;
    }
    const sections = splitGenerated(file.content);
    for (const [i, section] of sections.entries()) {
      const rule = parse(path, section);
      if (sections.length > 1) rule.path = `${path}#${i + 1}`;
      const plan: PlannedRule = {
        path: rule.path,
        action: 'not_mapped',
        format: rule.format,
        title: rule.title,
        notes: rule.notes,
      };
      plans.push(plan);
      const w = toWanted(rule, plan, project, clean, datapack, access);
      if (w) wanted.push(w);
    }
  }
  const existing = await importedEntries(deps, datapack);
  // Rules an export wrote that were made in Cairn (not imported) are matched by their id too.
  for (const id of new Set(wanted.map((w) => w.cairnId).filter((id): id is string => !!id))) {
    if (existing.some((e) => e.id === id)) continue;
    const entry = await deps.store.getEntry(id);
    if (entry && entry.datapackId === datapack.id && !entry.deletedAt) existing.push(entry);
  }
  const made = new Map<string, Wanted & { entry?: Entry }>();
  const matched = new Set<string>();
  for (const w of wanted) {
    const same = (e: { title: string; content: string }) => e.title === w.title && e.content === w.content;
    // A file Cairn exported names its rule; otherwise the file's own tag, else the same text.
    const exported = w.cairnId ? existing.find((e) => e.id === w.cairnId) : undefined;
    const entry = exported ?? existing.find((e) => e.tags.includes(w.tag)) ?? existing.find(same);
    if (!entry) {
      // The same rule twice in one repository (or in two of its tools' files) is one rule.
      const twin = [...made.values()].find(same);
      if (twin) {
        twin.applies = merged(twin.applies, w.applies);
        if (!twin.extraTags.includes(w.tag) && twin.tag !== w.tag) twin.extraTags.push(w.tag);
        w.plan.action = 'create';
        w.plan.notes.push(`the same rule as ${twin.plan.path}: one rule for both`);
        continue;
      }
      w.plan.action = 'create';
      made.set(w.plan.path, w);
      continue;
    }
    w.plan.entryId = entry.id;
    matched.add(entry.id);
    const next = {
      title: w.title,
      content: w.content,
      applies:
        entry.tags.includes(w.tag) && existingOnly(entry, w) ? w.applies : merged(entry.applies ?? null, w.applies),
      tags: exported ? entry.tags : [...new Set([...entry.tags, IMPORTED_TAG, w.tag])],
    };
    w.plan.applies = next.applies;
    const unchanged =
      entry.title === next.title &&
      entry.content === next.content &&
      sameApplies(entry.applies ?? null, next.applies) &&
      next.tags.length === entry.tags.length;
    if (unchanged) {
      w.plan.action = 'unchanged';
      continue;
    }
    if (next.tags.length > MAX_TAGS) {
      w.plan.notes.push(`the rule already comes from ${MAX_TAGS - 1} files; not linked to one more`);
      w.plan.action = 'not_mapped';
      continue;
    }
    w.plan.action = 'update';
    if (next.applies?.always && !access.canMarkAlways(datapack)) {
      w.plan.action = 'not_mapped';
      w.plan.notes.push(
        `it is the same rule as "${entry.title}" (${entry.id}), which applies always: only an organization admin can change it`,
      );
      continue;
    }
    if (!input.dryRun) {
      const done = await updateEntry(deps, access, {
        id: entry.id,
        expectedVersion: entry.version,
        title: next.title,
        content: next.content,
        tags: next.tags,
        applies: next.applies,
      });
      Object.assign(entry, done.entry);
    }
  }
  for (const w of made.values()) {
    w.plan.applies = w.applies;
    if (input.dryRun) continue;
    const saved = await saveEntry(deps, access, {
      datapack: datapack.id,
      kind: IMPORTED_KIND,
      title: w.title,
      content: w.content,
      tags: [IMPORTED_TAG, w.tag, ...w.extraTags].slice(0, MAX_TAGS),
      applies: w.applies ?? undefined,
      allowSimilar: true,
    });
    w.plan.entryId = saved.entry.id;
    if (saved.status === 'duplicate') {
      w.plan.action = 'not_mapped';
      w.plan.notes.push(
        `the datapack already holds this text as "${saved.entry.title}" (${saved.entry.id}), not imported: left as it is`,
      );
    }
  }
  const counts: Record<PlanAction, number> = { create: 0, update: 0, unchanged: 0, not_mapped: 0 };
  for (const p of plans) counts[p.action] += 1;
  return {
    dryRun: input.dryRun,
    project,
    datapack: { id: datapack.id, name: datapack.name },
    rules: plans,
    counts,
    missing: existing
      .filter(
        (e) =>
          !matched.has(e.id) &&
          e.tags.some((t) => t.startsWith('src-')) &&
          e.applies?.projects.some((p) => p.toLowerCase() === project.toLowerCase()),
      )
      .map((e) => ({ id: e.id, title: e.title })),
    redacted: [...redacted].map(([rule, count]) => ({ rule, count })),
  };
}

/** A parsed rule as the entry it should be, or undefined (with the reason in its notes) when it cannot be one. */
function toWanted(
  rule: ParsedRule,
  plan: PlannedRule,
  project: string,
  clean: (s: string) => string,
  datapack: Datapack,
  access: Access,
): Wanted | undefined {
  const content = clean(rule.content);
  if (content === '') {
    plan.notes.push('the file holds no text');
    return undefined;
  }
  if (content.length > MAX_CONTENT) {
    plan.notes.push(`${content.length} characters is more than the ${MAX_CONTENT} a rule may hold: split the file`);
    return undefined;
  }
  let title = clean(rule.title);
  if (title.length > MAX_TITLE) {
    title = title.slice(0, MAX_TITLE).trim();
    plan.notes.push(`the title was cut to ${MAX_TITLE} characters`);
  }
  plan.title = title;
  const always = rule.applies.always === true;
  if (always && !access.canMarkAlways(datapack)) {
    plan.notes.push(
      `it applies always, and you may not make "always" rules in "${datapack.name}": ask an organization admin to import it`,
    );
    return undefined;
  }
  const files: string[] = [];
  for (const g of rule.applies.files ?? []) {
    const problem = g.length > MAX_GLOB_LENGTH ? `longer than ${MAX_GLOB_LENGTH} characters` : globProblem(g);
    if (problem) plan.notes.push(`the glob "${g.slice(0, 80)}" was left out: ${problem}`);
    else if (files.length >= MAX_GLOBS)
      plan.notes.push(`the glob "${g.slice(0, 80)}" was left out: over ${MAX_GLOBS} globs`);
    else files.push(clean(g));
  }
  let when = rule.applies.when ? clean(rule.applies.when) : undefined;
  if (when && when.length > MAX_WHEN_LENGTH) {
    when = when.slice(0, MAX_WHEN_LENGTH).trim();
    plan.notes.push(`its description was cut to ${MAX_WHEN_LENGTH} characters for "when"`);
  }
  const applies = normalApplies({ always, files, when, projects: always ? [] : [project] });
  plan.applies = applies;
  return { plan, title, content, applies, tag: sourceTag(project, rule.path), extraTags: [], cairnId: rule.cairnId };
}

/** Whether the entry came only from this file (so its applicability is the file's, not merged). */
function existingOnly(entry: Entry, w: Wanted): boolean {
  return entry.tags.filter((t) => t.startsWith('src-')).every((t) => t === w.tag);
}

/** The applicability of one rule found in several places: every project and glob of either. */
function merged(a: Applies | null, b: Applies | null): Applies | null {
  if (!a) return b;
  if (!b) return a;
  const always = a.always || b.always;
  return normalApplies({
    always,
    files: always ? [] : [...a.files, ...b.files].slice(0, MAX_GLOBS),
    projects: always ? [] : [...a.projects, ...b.projects],
    when: b.when ?? a.when,
  });
}

function sameApplies(a: Applies | null, b: Applies | null): boolean {
  const key = (x: Applies | null) =>
    x ? JSON.stringify([x.always, [...x.files].sort(), [...x.projects].sort(), x.when ?? null]) : 'null';
  return key(a) === key(b);
}

/** The datapack's live imported rules. */
async function importedEntries(deps: DomainDeps, datapack: Datapack): Promise<Entry[]> {
  const ids = await deps.store.filteredEntryIds({ datapackIds: [datapack.id], tags: [IMPORTED_TAG] });
  const entries = await Promise.all([...ids].sort().map((id) => deps.store.getEntry(id)));
  return entries.filter((e): e is Entry => e !== undefined && !e.deletedAt);
}

import type { ImportReport } from '@cairn/contract';
import { mergeFindings, type RedactionFinding, redact } from '@cairn/contract/redaction';
import type { DatapackImport, EntryRecord } from '../store/transfer-types.js';
import type { Datapack, EntryVersion } from '../store/types.js';
import type { Access } from './access.js';
import { normalApplies } from './applies.js';
import { audit } from './audit.js';
import type { DomainDeps } from './deps.js';
import { type DatapackLine, type EntryLine, entryLine, usageLine } from './export-format.js';
import { NameDirectory } from './export-names.js';
import { assertWritableId, callerOwner } from './import-access.js';
import { checkFile, type LineSource, PROGRESS_EVERY, parseLine } from './import-check.js';
import { type Landed, UsageImport } from './import-usage.js';
import { contentHash } from './similarity.js';

/** How many of each thing an import created, updated, left unchanged and skipped (with why): the contract's shape. */
export type { ImportReport } from '@cairn/contract';

type Counts = ImportReport['entries'];

/**
 * Entries written per transaction: a datapack of 10,000 held SQLite's write lock for 1.7 s in one,
 * keeping a running server's writes waiting; 500 hold it for well under a tenth of that each.
 */
export const IMPORT_BATCH_ENTRIES = 500;

/** Where a datapack of the file lands here, or why it is skipped. */
type Target = { datapack: Datapack; mode: DatapackImport['mode'] } | { skip: string };

/**
 * Imports an export file. The whole file is checked first (a bad line stops it before anything is
 * written); then each datapack's entries are written in transactions of up to IMPORT_BATCH_ENTRIES
 * (the datapack itself with the first), so other writers get their turn in between. An import that
 * stops partway (an entry changed meanwhile, a crash) keeps the batches already written, each whole,
 * and running it again writes the rest: it is idempotent. Datapacks match by id,
 * else by owner and name; entries match by id, so importing the same file again changes nothing.
 * Owners are found by email and names; one that does not exist here is reported and its datapacks
 * skipped (no account, organization or team is ever created by an import). Redaction applies as on
 * every write path. With dryRun, nothing is written and the report is the same.
 *
 * With `access` (the JSON API), the import is a signed-in caller's: every datapack of the file must be
 * one they may write (import-access.ts), else nothing is written; captured turns stay turns only
 * when they are the caller's own; the audit trail names the caller.
 */
export async function importFile(
  deps: DomainDeps,
  source: LineSource,
  options: {
    dryRun?: boolean;
    access?: Access;
    onProgress?: (lines: number, pass: 'check' | 'import') => void;
  } = {},
): Promise<ImportReport> {
  const { access } = options;
  access?.assertMayWrite();
  const file = await checkFile(source, (n) => options.onProgress?.(n, 'check'));
  const self = access?.user && { userId: access.caller.userId, email: access.user.email };
  const names = new NameDirectory(deps.store, self || undefined);
  const report: ImportReport = {
    dryRun: options.dryRun === true,
    lines: file.lines,
    datapacks: counts(),
    entries: counts(),
    versions: 0,
    usage: counts(),
    problems: [],
    redacted: [],
  };
  const targets = new Map<string, Target>();
  const findings: RedactionFinding[] = [];
  for (const line of file.datapacks.values()) {
    const d = redactDatapack(line, findings);
    const target = await targetOf(deps, names, d, access);
    targets.set(d.id, target);
    if ('skip' in target) {
      report.datapacks.skipped += 1;
      report.problems.push(`Skipped datapack "${d.name}" and its entries: ${target.skip}.`);
    } else
      report.datapacks[target.mode === 'create' ? 'created' : target.mode === 'refresh' ? 'updated' : 'unchanged'] += 1;
  }
  const written = new Set<string>();
  const landed: Landed = new Map();
  const usage = new UsageImport(deps, names, landed, findings, { dryRun: report.dryRun, access });
  const lost = { turns: 0 };
  let group: { fileId: string; lines: EntryLine[] } | undefined;
  const flush = async () => {
    if (!group) return;
    const target = targets.get(group.fileId)!;
    if ('skip' in target) report.entries.skipped += group.lines.length;
    else {
      const turnsOf = access ? (email: string) => ownEmail(access, email) : (email: string) => names.userId(email);
      const records = await Promise.all(
        group.lines.map((e) => toRecord(names, e, target.datapack.id, findings, lost, turnsOf)),
      );
      const mode = written.has(group.fileId) ? 'keep' : target.mode;
      await writeGroup(deps, { ...target, mode }, records, report, access, landed);
      written.add(group.fileId);
    }
    group = undefined;
  };
  let n = 0;
  let pastHeader = false;
  for await (const text of source()) {
    n += 1;
    if (n % PROGRESS_EVERY === 0) options.onProgress?.(n, 'import');
    if (text.trim() === '') continue;
    const value = JSON.parse(text) as { type?: unknown };
    if (!pastHeader) pastHeader = true;
    else if (value.type === 'usage') {
      await flush();
      await usage.add(parseLine(usageLine, value, n));
    } else if (value.type !== 'entry') continue;
    else {
      const e = parseLine(entryLine, value, n);
      if (group && group.fileId !== e.datapack) await flush();
      group ??= { fileId: e.datapack, lines: [] };
      group.lines.push(e);
    }
  }
  await flush();
  await usage.flush();
  report.usage = usage.counts;
  // Datapacks without entries in the file are still created or refreshed.
  for (const [fileId, target] of targets) {
    if (!('skip' in target) && !written.has(fileId) && target.mode !== 'keep' && !report.dryRun) {
      await deps.store.importDatapack({ ...target, inserts: [], updates: [] });
      auditImport(deps, target.datapack, 0, 0, access);
    }
  }
  if (lost.turns)
    report.problems.push(
      `${lost.turns} captured turn(s) were imported as plain entries without their capture record: ${access ? 'they were sent by someone else' : 'the user who sent them does not exist here'}.`,
    );
  if (usage.othersSkipped)
    report.problems.push(
      `${usage.othersSkipped} rule usage answer(s) were not imported: they were given to someone else.`,
    );
  const unplaced = usage.counts.skipped - usage.othersSkipped;
  if (unplaced)
    report.problems.push(
      `${unplaced} rule usage answer(s) were not imported: none of the rules they name was imported here.`,
    );
  report.redacted = mergeFindings(findings);
  return report;
}

/** A datapack line with secrets in its name and description replaced by markers, as every other write path does. */
function redactDatapack(d: DatapackLine, findings: RedactionFinding[]): DatapackLine {
  const name = redact(d.name);
  const description = redact(d.description);
  findings.push(...name.findings, ...description.findings);
  return { ...d, name: name.text, description: description.text };
}

async function targetOf(deps: DomainDeps, names: NameDirectory, d: DatapackLine, access?: Access): Promise<Target> {
  const owner = access ? callerOwner(access, d) : await names.resolveOwner(d.owner);
  if ('missing' in owner) return { skip: `${owner.missing} does not exist here (create it, then import again)` };
  const createdBy = await names.person(d.createdBy);
  const imported: Datapack = {
    id: d.id,
    scope: d.scope,
    ownerId: owner.ownerId,
    organizationId: owner.organizationId,
    name: d.name,
    description: d.description,
    createdBy,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    deletedAt: d.deletedAt,
    deletedBy: d.deletedBy === null ? null : await names.person(d.deletedBy),
  };
  const same = await deps.store.getAnyDatapack(d.id);
  if (same && access) assertWritableId(access, d, same);
  if (same) {
    if (same.scope !== d.scope || same.ownerId !== owner.ownerId)
      return { skip: `its id ${d.id} belongs to another owner's datapack here` };
    return { datapack: same, mode: 'keep' };
  }
  if (d.deletedAt) return { datapack: imported, mode: 'create' };
  const named = (await deps.store.findDatapacks([{ scope: d.scope, ownerId: owner.ownerId }])).find(
    (x) => x.name.toLowerCase() === d.name.toLowerCase(),
  );
  if (!named) return { datapack: imported, mode: 'create' };
  // A datapack of that name that holds nothing yet (such as the Personal one every new account has)
  // takes the file's description and times; one that holds entries keeps its own.
  const empty = (await deps.store.exportEntries(named.id, '', 1)).length === 0;
  const differs =
    named.description !== d.description ||
    named.createdAt !== d.createdAt ||
    named.updatedAt !== d.updatedAt ||
    named.createdBy !== createdBy;
  if (!empty || !differs) return { datapack: named, mode: 'keep' };
  return {
    datapack: { ...named, description: d.description, createdAt: d.createdAt, updatedAt: d.updatedAt, createdBy },
    mode: 'refresh',
  };
}

/** Writes one datapack's entries of the file; those now here (new, newer or as they were) land in `landed`. */
async function writeGroup(
  deps: DomainDeps,
  target: { datapack: Datapack; mode: DatapackImport['mode'] },
  records: EntryRecord[],
  report: ImportReport,
  access: Access | undefined,
  landed: Landed,
): Promise<void> {
  const { mode } = target;
  const stored = await deps.store.entryStates(records.map((r) => r.entry.id));
  for (const r of records) {
    const state = stored.get(r.entry.id);
    if (!state || state.datapackId === target.datapack.id)
      landed.set(r.entry.id, { datapack: target.datapack, title: r.entry.title });
  }
  const write: DatapackImport = { datapack: target.datapack, mode, inserts: [], updates: [] };
  let elsewhere = 0;
  let newerHere = 0;
  for (const record of records) {
    const state = stored.get(record.entry.id);
    if (!state) {
      write.inserts.push(record);
      report.versions += record.versions.length;
    } else if (state.datapackId !== target.datapack.id) elsewhere += 1;
    else if (state.version === record.entry.version) report.entries.unchanged += 1;
    else if (state.version > record.entry.version) newerHere += 1;
    else {
      write.updates.push({ record, storedVersion: state.version });
      report.versions += record.versions.filter((v) => v.version > state.version).length;
    }
  }
  report.entries.created += write.inserts.length;
  report.entries.updated += write.updates.length;
  report.entries.skipped += elsewhere + newerHere;
  const where = `"${target.datapack.name}"`;
  if (elsewhere)
    report.problems.push(
      `Skipped ${elsewhere} entr${elsewhere === 1 ? 'y' : 'ies'} of ${where}: their ids belong to entries of another datapack here.`,
    );
  if (newerHere)
    report.problems.push(
      `Skipped ${newerHere} entr${newerHere === 1 ? 'y' : 'ies'} of ${where}: a newer version is stored here.`,
    );
  if (!report.dryRun && (mode !== 'keep' || write.inserts.length || write.updates.length)) {
    for (const batch of batches(write)) await deps.store.importDatapack(batch);
    auditImport(deps, target.datapack, write.inserts.length, write.updates.length, access);
  }
}

/** A datapack's write in transactions of up to IMPORT_BATCH_ENTRIES entries; the first creates or refreshes the datapack. */
function batches(write: DatapackImport): DatapackImport[] {
  const out: DatapackImport[] = [];
  const records = [...write.inserts.map((r) => ({ insert: r })), ...write.updates.map((u) => ({ update: u }))];
  for (let i = 0; i === 0 || i < records.length; i += IMPORT_BATCH_ENTRIES) {
    const slice = records.slice(i, i + IMPORT_BATCH_ENTRIES);
    out.push({
      datapack: write.datapack,
      mode: i === 0 ? write.mode : 'keep',
      inserts: slice.flatMap((r) => ('insert' in r ? [r.insert] : [])),
      updates: slice.flatMap((r) => ('update' in r ? [r.update] : [])),
    });
  }
  return out;
}

/** An import, per datapack written, in the audit trail (`datapack.imported`; the operator's has credential `cli`). */
function auditImport(deps: DomainDeps, d: Datapack, created: number, updated: number, access?: Access): void {
  audit(deps, {
    kind: 'datapack.imported',
    ...(access && { by: access.caller }),
    organizationId: d.organizationId,
    target: {
      type: `datapack.${d.scope}`,
      id: d.id,
      name: `${d.name} (${created} entries created, ${updated} updated)`,
    },
  });
}

async function toRecord(
  names: NameDirectory,
  e: EntryLine,
  datapackId: string,
  findings: RedactionFinding[],
  lost: { turns: number },
  turnUserOf: (email: string) => Promise<string | undefined> | string | undefined,
): Promise<EntryRecord> {
  // The current version repeats the last history row: each distinct text is redacted once, its findings counted each time.
  const seen = new Map<string, ReturnType<typeof redact>>();
  const clean = (text: string) => {
    let r = seen.get(text);
    if (!r) {
      r = redact(text);
      seen.set(text, r);
    }
    if (r.findings.length) findings.push(...r.findings);
    return r.text;
  };
  const cleanApplies = (a: EntryLine['applies'] | null) =>
    normalApplies(
      a && {
        ...a,
        files: a.files?.map(clean),
        projects: a.projects?.map(clean),
        when: a.when && clean(a.when),
      },
    );
  const versions: EntryVersion[] = [];
  for (const v of e.history) {
    const lifecycle = 'owner' in v || 'reviewBy' in v || 'expires' in v;
    versions.push({
      entryId: e.id,
      version: v.version,
      change: v.change,
      restoredFrom: v.restoredFrom,
      kind: v.kind,
      title: clean(v.title),
      content: clean(v.content),
      tags: v.tags.map(clean),
      changedBy: await names.person(v.changedBy),
      changedClient: v.changedClient,
      changedAt: v.changedAt,
      ...(v.applies !== undefined && { applies: cleanApplies(v.applies) }),
      ...(lifecycle && {
        lifecycle: {
          owner: v.owner ? await names.person(v.owner) : null,
          reviewBy: v.reviewBy ?? null,
          expires: v.expires ?? null,
        },
      }),
    });
  }
  const title = clean(e.title);
  const content = clean(e.content);
  const turnUser = e.turn && (await turnUserOf(e.turn.user));
  if (e.turn && !turnUser) lost.turns += 1;
  return {
    entry: {
      id: e.id,
      datapackId,
      kind: e.kind,
      title,
      content,
      tags: e.tags.map(clean),
      contentHash: contentHash(title, content),
      version: e.version,
      createdBy: await names.person(e.createdBy),
      createdClient: e.createdClient,
      createdAt: e.createdAt,
      updatedBy: await names.person(e.updatedBy),
      updatedClient: e.updatedClient,
      updatedAt: e.updatedAt,
      deletedAt: e.deletedAt,
      applies: cleanApplies(e.applies),
      supersedes: e.supersedes ?? [],
      replacedBy: e.replacedBy ?? null,
      // An owner unknown here keeps the stored id, as authors do; the dates come as they were, expired or not.
      owner: e.owner ? await names.person(e.owner) : null,
      reviewBy: e.reviewBy ?? null,
      expires: e.expires ?? null,
    },
    versions,
    ...(e.turn &&
      turnUser && {
        turn: {
          userId: turnUser,
          turnId: e.turn.turnId,
          createdAt: e.turn.at,
          sessionId: e.turn.sessionId,
          speaker: e.turn.speaker,
          role: e.turn.role,
        },
      }),
  };
}

/** A caller's import keeps a captured turn as a turn only when it is their own. */
function ownEmail(access: Access, email: string): string | undefined {
  return access.user && access.user.email.toLowerCase() === email.toLowerCase() ? access.caller.userId : undefined;
}

function counts(): Counts {
  return { created: 0, updated: 0, unchanged: 0, skipped: 0 };
}

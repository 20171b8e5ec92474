import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadAccess } from '../domain/access.js';
import { exportLines, planOperatorExport } from '../domain/export.js';
import { type ImportReport, importFile } from '../domain/import.js';
import { CairnError } from '../errors/cairn-error.js';
import type { Cairn } from '../runtime/open-cairn.js';
import type { Options } from './commands.js';
import { fileLines } from './import-lines.js';
import { isMarkdownFolder, readMarkdownFolder, writeMarkdownFolder } from './markdown-folder.js';

/** Progress goes to stderr every this many entries or lines. */
const PROGRESS_EVERY = 1000;

/** `cairn export [--user E | --org NAME] [--datapack ID] --out FILE.jsonl`: everything by default. */
export async function exportCommand(cairn: Cairn, o: Options): Promise<void> {
  const out = typeof o.out === 'string' && o.out.trim() !== '' ? o.out : undefined;
  if (!out)
    throw new CairnError(
      'invalid_input',
      '--out FILE.jsonl is required: the file (or with --format markdown, the folder) to write the export to.',
    );
  if (o.format !== undefined && o.format !== 'jsonl' && o.format !== 'markdown') {
    throw new CairnError(
      'invalid_input',
      `--format must be "jsonl" (one file, every version) or "markdown" (a folder, current versions) (got "${String(o.format).slice(0, 40)}").`,
    );
  }
  if (typeof o.user === 'string' && typeof o.org === 'string')
    throw new CairnError('invalid_input', 'Pass --user or --org, not both.');
  let access: Awaited<ReturnType<typeof loadAccess>> | undefined;
  if (typeof o.user === 'string') {
    const user = await cairn.store.findUserByEmail(o.user);
    if (!user) throw new CairnError('not_found', `No user with the email ${o.user}.`);
    access = await loadAccess(cairn.domain, { userId: user.id, client: 'cairn-cli', via: 'cli', scope: 'read' });
  }
  const plan = await planOperatorExport(cairn.domain, access, {
    organization: typeof o.org === 'string' ? o.org : undefined,
    datapack: typeof o.datapack === 'string' ? o.datapack : undefined,
  });
  if (!existsSync(dirname(resolve(out))))
    throw new CairnError(
      'not_found',
      `The folder ${dirname(resolve(out))} does not exist; create it or choose another --out.`,
    );
  const started = Date.now();
  const progress = (n: number) => {
    if (n % PROGRESS_EVERY === 0) process.stderr.write(`… ${n} entries\n`);
  };
  if (o.format === 'markdown') {
    await writeMarkdownFolder(exportLines(cairn.domain, plan, progress), out);
    process.stderr.write(
      `Exported ${plan.datapacks.length} datapacks as Markdown to ${out}/ in ${((Date.now() - started) / 1000).toFixed(1)} s (current versions; the history is in the JSON Lines export).\n`,
    );
    return;
  }
  // Written beside the target and renamed at the end: a failed export never leaves a half file under its name. Mode 0600: it holds people's data.
  const partial = `${out}.partial`;
  const file = createWriteStream(partial, { mode: 0o600 });
  let entries = 0;
  try {
    for await (const chunk of exportLines(cairn.domain, plan, (n) => {
      entries = n;
      progress(n);
    })) {
      if (!file.write(chunk)) await once(file, 'drain');
    }
    file.end();
    await once(file, 'finish');
    renameSync(partial, out);
  } catch (error) {
    file.destroy();
    rmSync(partial, { force: true });
    throw error;
  }
  process.stderr.write(
    `Exported ${plan.datapacks.length} datapacks and ${entries} entries to ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
  );
}

/** `cairn import FILE.jsonl|FOLDER [--dry-run]`: prints what was created, updated and skipped. */
export async function importCommand(cairn: Cairn, o: Options, args: string[]): Promise<void> {
  const path = args[0];
  if (!path)
    throw new CairnError(
      'invalid_input',
      'Name the file to import: cairn import FILE.jsonl [--dry-run] (a file cairn export wrote).',
    );
  if (!existsSync(path))
    throw new CairnError(
      'not_found',
      `Nothing at ${path}: pass the file (or Markdown folder) that cairn export wrote.`,
    );
  const started = Date.now();
  const folder = isMarkdownFolder(path) ? readMarkdownFolder(path) : undefined;
  const source = folder ? () => folder : () => fileLines(path);
  const report = await importFile(cairn.domain, source, {
    dryRun: o['dry-run'] === true,
    onProgress: (n, pass) => process.stderr.write(`… ${pass === 'check' ? 'checked' : 'imported'} ${n} lines\n`),
  });
  process.stdout.write(describeReport(report));
  process.stderr.write(
    `${report.dryRun ? 'Dry run' : 'Import'} of ${report.lines} lines took ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
  );
}

/** The report as the CLI prints it. */
export function describeReport(r: ImportReport): string {
  const count = (c: ImportReport['entries']) =>
    `${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.skipped} skipped`;
  const lines = [
    r.dryRun ? 'Dry run: nothing was written. The import would give:' : 'Imported:',
    `Datapacks: ${count(r.datapacks)}`,
    `Entries: ${count(r.entries)} (${r.versions} versions written)`,
    ...(Object.values(r.usage).some((n) => n > 0) ? [`Rule usage answers: ${count(r.usage)}`] : []),
    ...r.problems,
    ...(r.redacted.length
      ? [`Secrets redacted on the way in: ${r.redacted.map((f) => `${f.rule} ×${f.count}`).join(', ')}`]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

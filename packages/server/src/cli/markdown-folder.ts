import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DatapackLine, datapackLine, type EntryLine, entryLine } from '../domain/export-format.js';
import {
  DATAPACK_FILE,
  datapackToMarkdown,
  entryToMarkdown,
  fileSlug,
  HEADER_FILE,
  markdownToDatapack,
  markdownToEntry,
} from '../domain/export-markdown.js';
import { parseLine } from '../domain/import-check.js';
import { CairnError } from '../errors/cairn-error.js';
import { readImportFile } from './import-lines.js';

/** Writes an export's lines as a folder: the header file, one folder per datapack, one .md file per entry (0600 files: people's data). */
export async function writeMarkdownFolder(lines: AsyncIterable<string>, folder: string): Promise<void> {
  if (statSync(folder, { throwIfNoEntry: false }) && readdirSync(folder).length > 0) {
    throw new CairnError('invalid_input', `${folder} is not empty; export Markdown into a new or empty folder.`);
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const folders = new Map<string, string>();
  let first = true;
  for await (const chunk of lines) {
    for (const text of chunk.split('\n')) {
      if (text === '') continue;
      const value = JSON.parse(text);
      if (first) {
        writeFileSync(join(folder, HEADER_FILE), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
        first = false;
      } else if (value.type === 'datapack') {
        const d = value as DatapackLine;
        const dir = `${fileSlug(d.name)}--${d.id}`;
        mkdirSync(join(folder, dir), { mode: 0o700 });
        writeFileSync(join(folder, dir, DATAPACK_FILE), datapackToMarkdown(d), { mode: 0o600 });
        folders.set(d.id, dir);
      } else if (value.type === 'entry') {
        const e = value as EntryLine;
        writeFileSync(join(folder, folders.get(e.datapack)!, `${fileSlug(e.title)}--${e.id}.md`), entryToMarkdown(e), {
          mode: 0o600,
        });
      }
    }
  }
}

/** True when `path` is a folder holding a Markdown export. */
export function isMarkdownFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A Markdown export folder read back as the JSON Lines an import takes (current versions only). */
export function readMarkdownFolder(folder: string): string[] {
  const headerPath = join(folder, HEADER_FILE);
  if (!statSync(headerPath, { throwIfNoEntry: false }))
    throw new CairnError(
      'invalid_input',
      `${folder} holds no ${HEADER_FILE}: it is not a folder cairn export --format markdown wrote.`,
    );
  const datapacks: string[] = [];
  const entries: string[] = [];
  for (const dir of readdirSync(folder, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    const packFile = join(folder, dir, DATAPACK_FILE);
    if (!statSync(packFile, { throwIfNoEntry: false }))
      throw new CairnError('invalid_input', `${join(dir, DATAPACK_FILE)} is missing: every datapack folder needs it.`);
    const pack = checked<DatapackLine>(
      datapackLine,
      markdownToDatapack(readImportFile(packFile, join(dir, DATAPACK_FILE)), join(dir, DATAPACK_FILE)),
      join(dir, DATAPACK_FILE),
    );
    datapacks.push(JSON.stringify(pack));
    for (const file of readdirSync(join(folder, dir))
      .filter((f) => f.endsWith('.md') && f !== DATAPACK_FILE)
      .sort()) {
      const where = join(dir, file);
      entries.push(
        JSON.stringify(
          checked(entryLine, markdownToEntry(readImportFile(join(folder, dir, file), where), where, pack.id), where),
        ),
      );
    }
  }
  const header = JSON.stringify(JSON.parse(readImportFile(headerPath, HEADER_FILE)));
  return [
    header,
    ...datapacks,
    ...entries,
    JSON.stringify({ type: 'end', datapacks: datapacks.length, entries: entries.length }),
  ];
}

/** Checks a file's line as the import will, so a problem names the file rather than a line number. */
function checked<T>(schema: Parameters<typeof parseLine>[0], value: unknown, where: string): T {
  try {
    return parseLine(schema, value, 0) as T;
  } catch (error) {
    if (error instanceof CairnError)
      throw new CairnError('invalid_input', `${where}: ${error.message.replace(/^Line 0: /, '')}`);
    throw error;
  }
}

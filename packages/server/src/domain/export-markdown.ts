import { CairnError } from '../errors/cairn-error.js';
import type { DatapackLine, EntryLine } from './export-format.js';

/**
 * The Markdown form of an export, for people: one file per entry, its metadata as front matter
 * (one `key: value` per line, each value JSON, which YAML reads too) and its content as the body,
 * byte for byte. It carries the current version only; the history travels in JSON Lines.
 */
const FENCE = '---';

/** A datapack's own file in its folder: metadata as front matter, the description as body. */
export const DATAPACK_FILE = '_datapack.md';

/** The file that marks a folder as a Cairn Markdown export and holds the header. */
export const HEADER_FILE = 'cairn-export.json';

/** An entry as a Markdown file. */
export function entryToMarkdown(e: EntryLine): string {
  const { content, history: _history, type: _type, datapack: _datapack, ...fields } = e;
  return render(fields, content);
}

/** A datapack as its Markdown file. */
export function datapackToMarkdown(d: DatapackLine): string {
  const { description, type: _type, ...fields } = d;
  return render(fields, description);
}

/** The entry line a Markdown file stands for, in the datapack of its folder; its one history row is its current version. */
export function markdownToEntry(text: string, where: string, datapack: string): Record<string, unknown> {
  const { fields, body } = parse(text, where);
  const version = fields.version;
  const history = [
    {
      version,
      change: fields.deletedAt ? 'delete' : version === 1 ? 'create' : 'update',
      restoredFrom: null,
      kind: fields.kind,
      title: fields.title,
      content: body,
      tags: fields.tags,
      changedBy: fields.updatedBy,
      changedClient: fields.updatedClient,
      changedAt: fields.deletedAt ?? fields.updatedAt,
    },
  ];
  return { type: 'entry', ...fields, datapack, content: body, history };
}

/** The datapack line a folder's `_datapack.md` stands for. */
export function markdownToDatapack(text: string, where: string): Record<string, unknown> {
  const { fields, body } = parse(text, where);
  return { type: 'datapack', ...fields, description: body };
}

/** A name safe in any file system, from a title or name. */
export function fileSlug(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 50) || 'untitled'
  );
}

function render(fields: Record<string, unknown>, body: string): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `${FENCE}\n${lines.join('\n')}\n${FENCE}\n${body}`;
}

function parse(text: string, where: string): { fields: Record<string, unknown>; body: string } {
  const fail = (problem: string) =>
    new CairnError(
      'invalid_input',
      `${where}: ${problem}. Nothing was imported; fix the file (or export again) and retry.`,
    );
  if (!text.startsWith(`${FENCE}\n`)) throw fail('it does not start with front matter (a "---" line)');
  const end = text.indexOf(`\n${FENCE}\n`, FENCE.length);
  if (end < 0) throw fail('its front matter has no closing "---" line');
  const fields: Record<string, unknown> = {};
  for (const line of text.slice(FENCE.length + 1, end).split('\n')) {
    const colon = line.indexOf(': ');
    if (colon < 1) throw fail(`the front matter line "${line.slice(0, 60)}" is not "key: value"`);
    try {
      fields[line.slice(0, colon)] = JSON.parse(line.slice(colon + 2));
    } catch {
      throw fail(
        `the value of ${line.slice(0, colon)} is not valid (strings are in double quotes, as the export wrote them)`,
      );
    }
  }
  return { fields, body: text.slice(end + FENCE.length + 2) };
}

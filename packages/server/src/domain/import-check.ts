import type { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import {
  type DatapackLine,
  datapackLine,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  endLine,
  entryLine,
  type HeaderLine,
  headerLine,
  usageLine,
} from './export-format.js';
import { findNul } from './parse-input.js';

/** A file's lines, readable more than once (an import checks the whole file before it writes). */
export type LineSource = () => AsyncIterable<string> | Iterable<string>;

/** What checking a whole file found: its header and datapacks, and how many entries follow. */
export interface CheckedFile {
  header: HeaderLine;
  datapacks: Map<string, DatapackLine>;
  entries: number;
  usage: number;
  lines: number;
}

/**
 * Reads the whole file and refuses it at the first line that is not what an export writes: not
 * JSON, a missing or unknown field, a NUL character, an entry of an undeclared datapack, a repeated
 * id, or no end line (a cut-off download). The error names the line; nothing has been written.
 */
export async function checkFile(source: LineSource, onProgress?: (lines: number) => void): Promise<CheckedFile> {
  let header: HeaderLine | undefined;
  const datapacks = new Map<string, DatapackLine>();
  const entryIds = new Set<string>();
  const usageIds = new Set<string>();
  let ended = false;
  let n = 0;
  for await (const text of source()) {
    n += 1;
    if (n % PROGRESS_EVERY === 0) onProgress?.(n);
    if (text.trim() === '') continue;
    if (ended) throw lineError(n, 'there is more after the end line; the file was joined with something else');
    const value = parseJson(text, n);
    if (!header) {
      header = checkHeader(value, n);
      continue;
    }
    const type = (value as { type?: unknown }).type;
    if ((type === 'datapack' || type === 'entry') && usageIds.size > 0)
      throw lineError(n, `${a(type)} line comes after usage lines; every usage line must come after the entries`);
    if (type === 'datapack') {
      if (entryIds.size > 0)
        throw lineError(n, 'a datapack line comes after entries; every datapack line must come before the entries');
      const d = parseLine(datapackLine, value, n);
      if (datapacks.has(d.id)) throw lineError(n, `datapack ${d.id} appears twice`);
      if (ownerScope(d) !== d.scope)
        throw lineError(n, `a ${d.scope} datapack's owner must name a ${d.scope === 'personal' ? 'user' : d.scope}`);
      datapacks.set(d.id, d);
    } else if (type === 'entry') {
      const e = parseLine(entryLine, value, n);
      if (!datapacks.has(e.datapack))
        throw lineError(n, `entry ${e.id} belongs to datapack ${e.datapack}, which no datapack line declares`);
      if (entryIds.has(e.id)) throw lineError(n, `entry ${e.id} appears twice`);
      entryIds.add(e.id);
    } else if (type === 'usage') {
      const u = parseLine(usageLine, value, n);
      const unknown = [...u.given, ...u.named].find((i) => !entryIds.has(i.entry));
      if (unknown)
        throw lineError(n, `usage ${u.id} names entry ${unknown.entry}, which no entry line before it holds`);
      if (usageIds.has(u.id)) throw lineError(n, `usage ${u.id} appears twice`);
      usageIds.add(u.id);
    } else if (type === 'end') {
      const end = parseLine(endLine, value, n);
      if (end.datapacks !== datapacks.size || end.entries !== entryIds.size || (end.usage ?? 0) !== usageIds.size) {
        throw lineError(
          n,
          `the end line counts ${end.datapacks} datapacks, ${end.entries} entries and ${end.usage ?? 0} usage lines but the file holds ${datapacks.size}, ${entryIds.size} and ${usageIds.size}`,
        );
      }
      ended = true;
    } else
      throw lineError(
        n,
        `unknown line type ${JSON.stringify(type)?.slice(0, 40)}; expected "datapack", "entry", "usage" or "end"`,
      );
  }
  if (!header)
    throw new CairnError('invalid_input', 'The file is empty; it is not a Cairn export (cairn export writes one).');
  if (!ended)
    throw new CairnError(
      'invalid_input',
      `The file ends at line ${n} without its end line: it was cut off. Nothing was imported; export again and import the whole file.`,
    );
  return { header, datapacks, entries: entryIds.size, usage: usageIds.size, lines: n };
}

function a(type: 'datapack' | 'entry'): string {
  return type === 'entry' ? 'an entry' : 'a datapack';
}

/** Progress is reported every this many lines. */
export const PROGRESS_EVERY = 1000;

/** An error naming the line, saying that nothing was written. */
export function lineError(n: number, problem: string): CairnError {
  return new CairnError(
    'invalid_input',
    `Line ${n}: ${problem}. Nothing was imported; fix that line (or export again) and retry.`,
    { line: n },
  );
}

function checkHeader(value: unknown, n: number): HeaderLine {
  if ((value as { format?: unknown }).format !== EXPORT_FORMAT)
    throw lineError(n, `this is not a Cairn export: the first line must be the header {"format":"${EXPORT_FORMAT}",…}`);
  const header = parseLine(headerLine, value, n);
  if (header.version > EXPORT_VERSION)
    throw lineError(
      n,
      `the file is format version ${header.version}, newer than this Cairn reads (${EXPORT_VERSION}); upgrade Cairn`,
    );
  return header;
}

function parseJson(text: string, n: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw lineError(n, `not valid JSON (${(error as Error).message.slice(0, 120)})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw lineError(n, 'not a JSON object');
  return value;
}

/** Parses one line with its schema; the same NUL rule as every write path (PostgreSQL cannot store U+0000). */
export function parseLine<S extends z.ZodType>(schema: S, value: unknown, n: number): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || 'line'}: ${i.message}`)
      .join('; ');
    throw lineError(n, problems);
  }
  const nul = findNul(result.data);
  if (nul !== undefined)
    throw lineError(n, `${nul} contains a NUL character (\\u0000), which Cairn cannot store; remove it`);
  return result.data;
}

function ownerScope(d: DatapackLine): DatapackLine['scope'] {
  if ('user' in d.owner) return 'personal';
  return 'team' in d.owner ? 'team' : 'organization';
}

import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { CairnError } from '../errors/cairn-error.js';

/**
 * The longest line (or Markdown file) an import reads: far above any entry cairn export writes (20,000
 * characters of content per version), far below what a Node string can hold. A file past it is not an
 * export (`cairn import /dev/zero`), and is refused naming the line before memory runs out.
 */
export const MAX_IMPORT_LINE_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;

function tooLong(where: string, limit: number): CairnError {
  return new CairnError(
    'invalid_input',
    `${where} is longer than ${Math.round(limit / 1024 / 1024)} MB without a line break: it is not a file cairn export wrote. Nothing was imported; check that you named the right file.`,
  );
}

/** A file's lines, read in chunks: no line, however long, is held beyond `limit` bytes. */
export async function* fileLines(path: string, limit = MAX_IMPORT_LINE_BYTES): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let pending = 0;
  let n = 0;
  const line = (tail: Buffer) => {
    n += 1;
    const text = Buffer.concat([...parts, tail]).toString('utf8');
    parts = [];
    pending = 0;
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      if (pending + at - from > limit) throw tooLong(`Line ${n + 1} of ${path}`, limit);
      yield line(chunk.subarray(from, at));
      from = at + 1;
    }
    const rest = chunk.subarray(from);
    pending += rest.length;
    if (pending > limit) throw tooLong(`Line ${n + 1} of ${path}`, limit);
    if (rest.length) parts.push(Buffer.from(rest));
  }
  if (pending > 0) yield line(Buffer.alloc(0));
}

/** A whole (Markdown) file, refused naming it and its long line when a line runs past `limit` bytes. */
export function readImportFile(path: string, where: string, limit = MAX_IMPORT_LINE_BYTES): string {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    let line = 1;
    let lineBytes = 0;
    const buffer = Buffer.alloc(1 << 20);
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      for (let i = 0; i < read; i++) {
        if (buffer[i] === NEWLINE) {
          line += 1;
          lineBytes = 0;
        } else if (++lineBytes > limit) throw tooLong(`Line ${line} of ${where}`, limit);
      }
      total += read;
      // Many lines, each short: the whole file still has to fit a string.
      if (total > 4 * limit)
        throw new CairnError(
          'invalid_input',
          `${where} is larger than ${Math.round((4 * limit) / 1024 / 1024)} MB: no entry cairn export writes is. Nothing was imported; check the folder.`,
        );
      chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

import { readFileSync } from 'node:fs';

/**
 * Each word's closest words in the offline table (word-vectors.ts), computed once by
 * scripts/build-word-neighbours.mjs and shipped beside the vectors: a cosine above FLOOR, at most
 * 256 per word, closest first, each with its closeness as a byte (2 just above the floor, 255 the
 * word itself). Search's facets read a query word's list instead of comparing the word with every
 * word a caller's entries use.
 */
const FILE = new URL('../../data/word-vectors/glove-100d-50k-neighbours.bin', import.meta.url);
/** The cosine a neighbour must pass (the file says so too, and is checked). */
export const NEIGHBOUR_FLOOR = 0.5;

interface Lists {
  offsets: Uint32Array;
  rows: Uint16Array;
  bytes: Uint8Array;
}

let lists: Lists | undefined;

function load(): Lists {
  if (lists) return lists;
  const file = readFileSync(FILE);
  if (file.toString('latin1', 0, 4) !== 'CWN1') throw new Error(`${FILE.pathname} is not a Cairn word-neighbour file`);
  const count = file.readUInt32LE(4);
  if (file.readUInt32LE(12) !== NEIGHBOUR_FLOOR * 1000) throw new Error(`${FILE.pathname} was built for another floor`);
  // Copied into aligned buffers: typed arrays cannot view a Buffer at an odd offset.
  const offsets = new Uint32Array(count + 1);
  Buffer.from(offsets.buffer).set(file.subarray(16, 16 + offsets.byteLength));
  const total = offsets[count]!;
  const rowsAt = 16 + offsets.byteLength;
  const rows = new Uint16Array(total);
  Buffer.from(rows.buffer).set(file.subarray(rowsAt, rowsAt + total * 2));
  const bytes = new Uint8Array(file.subarray(rowsAt + total * 2, rowsAt + total * 3));
  lists = { offsets, rows, bytes };
  return lists;
}

/** The rows close to a row and their closeness bytes (empty for the most frequent words). */
export function neighboursOf(row: number): { rows: Uint16Array; bytes: Uint8Array } {
  const { offsets, rows, bytes } = load();
  const from = offsets[row]!;
  const to = offsets[row + 1]!;
  return { rows: rows.subarray(from, to), bytes: bytes.subarray(from, to) };
}

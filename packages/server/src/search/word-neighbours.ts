import { openSync } from 'node:fs';
import { BoundedCache } from '../cache/bounded-cache.js';
import { readAt } from './data-file.js';

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

/**
 * The lists stay in the file (8.6 MB, more than the rest of the search data together) and are read
 * when a query word needs one: a search reads at most 12 (one per facet), a few microseconds each
 * from the page cache, which the operating system can drop, unlike the process's own memory. Only
 * each word's offset is held (200 KB), and the lists of the words most recently asked for.
 */
interface File {
  fd: number;
  offsets: Uint32Array;
  rowsAt: number;
  bytesAt: number;
}

// Module-level on purpose: the neighbour file shipped with Cairn (public data, no tenant's), opened once per process.
let file: File | undefined;

function open(): File {
  if (file) return file;
  const fd = openSync(FILE, 'r');
  const head = Buffer.alloc(16);
  readAt(fd, head, 0, FILE);
  if (head.toString('latin1', 0, 4) !== 'CWN1') throw new Error(`${FILE.pathname} is not a Cairn word-neighbour file`);
  const count = head.readUInt32LE(4);
  if (head.readUInt32LE(12) !== NEIGHBOUR_FLOOR * 1000) throw new Error(`${FILE.pathname} was built for another floor`);
  const offsets = new Uint32Array(count + 1);
  readAt(fd, offsets, 16, FILE);
  const rowsAt = 16 + offsets.byteLength;
  // Never closed: the process reads it for as long as it searches.
  file = { fd, offsets, rowsAt, bytesAt: rowsAt + offsets[count]! * 2 };
  return file;
}

type List = { rows: Uint16Array; bytes: Uint8Array };
/** Lists kept after reading (about 170 bytes each on average): a user's queries repeat words. */
export const RECENT_LISTS = 2_000;
// Module-level on purpose: lists of the shipped neighbour file, bounded, holding no tenant's data.
const recent = new BoundedCache<number, List>(RECENT_LISTS);

/** The rows close to a row and their closeness bytes (empty for the most frequent words). */
export function neighboursOf(row: number): List {
  const known = recent.get(row);
  if (known) return known;
  const { fd, offsets, rowsAt, bytesAt } = open();
  const from = offsets[row]!;
  const length = offsets[row + 1]! - from;
  const list = { rows: new Uint16Array(length), bytes: new Uint8Array(length) };
  if (length > 0) {
    readAt(fd, list.rows, rowsAt + from * 2, FILE);
    readAt(fd, list.bytes, bytesAt + from, FILE);
  }
  recent.set(row, list);
  return list;
}

/** How many lists are held in memory (for tests). */
export function heldLists(): number {
  return recent.size;
}

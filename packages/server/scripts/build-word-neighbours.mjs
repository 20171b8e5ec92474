#!/usr/bin/env node
/**
 * Builds data/word-vectors/glove-100d-50k-neighbours.bin from glove-100d-50k.bin: for each word,
 * its closest words in the table (cosine above the facet floor, at most MAX_PER_WORD, closest
 * first), so search's facets (src/search/facet-scores.ts) look a query word's neighbours up instead
 * of comparing it with every word a caller's entries use (a millisecond per new word per search).
 * Not run by the build: the output is committed. It compares every pair of words, 50,000² × 100
 * products, in worker threads (about five minutes on two cores):
 *
 *   node scripts/build-word-neighbours.mjs
 *
 * Cosines are computed as facet-scores.ts computed them at search time (the query word's vector at
 * unit length in float32, the other word's 8-bit vector and inverse norm). The table's 100 most
 * frequent words are no facets and meet none, so they have no list and appear in none.
 *
 * Format (little-endian): "CWN1", uint32 word count, uint32 MAX_PER_WORD, uint32 floor × 1000,
 * uint32 offset per word plus one (into the lists), then uint16 neighbour rows, then one closeness
 * byte per neighbour: 2 + round(253 × (cosine − floor) / (1 − floor)).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const TABLE = new URL('../data/word-vectors/glove-100d-50k.bin', import.meta.url);
const OUT = new URL('../data/word-vectors/glove-100d-50k-neighbours.bin', import.meta.url);
const FLOOR = 0.5;
const COMMON = 100;
const MAX_PER_WORD = 256;

function loadTable() {
  const bytes = readFileSync(TABLE);
  const count = bytes.readUInt32LE(4);
  const dims = bytes.readUInt32LE(8);
  const vectorsAt = 12 + count * 4;
  const vectors = new Int8Array(
    bytes.buffer.slice(bytes.byteOffset + vectorsAt, bytes.byteOffset + vectorsAt + count * dims),
  );
  const inverse = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    let n = 0;
    for (let d = 0; d < dims; d++) n += vectors[r * dims + d] * vectors[r * dims + d];
    inverse[r] = n ? 1 / Math.sqrt(n) : 0;
  }
  return { count, dims, vectors, inverse };
}

function closenessByte(cosine) {
  return 2 + Math.round((253 * (Math.min(cosine, 1) - FLOOR)) / (1 - FLOOR));
}

/** Neighbour lists of rows [from, to), as flat arrays. */
function neighbours(from, to) {
  const { count, dims, vectors, inverse } = loadTable();
  const unit = new Float32Array(dims);
  const lengths = new Uint32Array(to - from);
  const rows = [];
  const bytes = [];
  const found = [];
  for (let q = from; q < to; q++) {
    found.length = 0;
    if (q >= COMMON) {
      for (let d = 0; d < dims; d++) unit[d] = vectors[q * dims + d] * inverse[q];
      for (let r = COMMON; r < count; r++) {
        if (r === q) continue;
        const at = r * dims;
        let s = 0;
        for (let d = 0; d < dims; d++) s += unit[d] * vectors[at + d];
        const cosine = s * inverse[r];
        if (cosine > FLOOR) found.push({ r, b: closenessByte(cosine) });
      }
      found.sort((a, b) => b.b - a.b || a.r - b.r);
      if (found.length > MAX_PER_WORD) found.length = MAX_PER_WORD;
    }
    lengths[q - from] = found.length;
    for (const f of found) {
      rows.push(f.r);
      bytes.push(f.b);
    }
  }
  return { lengths, rows: Uint16Array.from(rows), bytes: Uint8Array.from(bytes) };
}

if (isMainThread) {
  const { count } = loadTable();
  if (count > 65_536) throw new Error('neighbour rows are stored in 16 bits');
  const workers = Math.max(1, availableParallelism());
  const step = Math.ceil(count / workers);
  const started = Date.now();
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const worker = new Worker(new URL(import.meta.url), {
        workerData: { from: w * step, to: Math.min(count, (w + 1) * step) },
      });
      return new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }),
  );
  const offsets = new Uint32Array(count + 1);
  let total = 0;
  let i = 0;
  for (const part of parts) for (const length of part.lengths) offsets[++i] = total += length;
  const header = Buffer.alloc(16);
  header.write('CWN1', 0, 'latin1');
  header.writeUInt32LE(count, 4);
  header.writeUInt32LE(MAX_PER_WORD, 8);
  header.writeUInt32LE(FLOOR * 1000, 12);
  const rows = Buffer.concat(parts.map((p) => Buffer.from(p.rows.buffer, p.rows.byteOffset, p.rows.byteLength)));
  const bytes = Buffer.concat(parts.map((p) => Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength)));
  writeFileSync(OUT, Buffer.concat([header, Buffer.from(offsets.buffer), rows, bytes]));
  console.log(
    `${count} words, ${total} neighbours (${(total / count).toFixed(1)} per word), ${((16 + offsets.byteLength + rows.length + bytes.length) / 2 ** 20).toFixed(1)} MB, ${Math.round((Date.now() - started) / 1000)} s`,
  );
} else {
  const result = neighbours(workerData.from, workerData.to);
  parentPort.postMessage(result, [result.lengths.buffer, result.rows.buffer, result.bytes.buffer]);
}

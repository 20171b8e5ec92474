import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { words } from './search-ranking.js';
import { isStopWord } from './search-terms.js';
import {
  cosine,
  heldRows,
  RECENT_ROWS,
  tableSize,
  textVector,
  VECTOR_DIMS,
  wordOfRow,
  wordRow,
} from './word-vectors.js';

const vector = (text: string) => {
  const v = textVector(words(text));
  assert.ok(v, `a vector for ${text}`);
  return v;
};

test('word vectors: related texts without a shared word are closer than unrelated ones', () => {
  const pairs: [string, string, string][] = [
    ['automobile', 'Park the car in the garage', 'Write unit tests first'],
    ['favourite food', 'Ada loves sushi and ramen', 'Deploying on Fridays is forbidden'],
    ['which database do we use', 'We store everything in PostgreSQL', 'The office dog is called Rex'],
  ];
  for (const [query, related, unrelated] of pairs) {
    const q = vector(query);
    assert.ok(
      cosine(q, vector(related)) > cosine(q, vector(unrelated)) + 0.05,
      `${query}: "${related}" before "${unrelated}"`,
    );
  }
});

test('word vectors: unit length; no vector for unknown words or stop words alone', () => {
  const v = vector('Every service logs in JSON');
  assert.ok(Math.abs(cosine(v, v) - 1) < 1e-5);
  assert.equal(textVector(words('xyzzyq plughh')), undefined);
  assert.equal(textVector(words('the and of')), undefined);
  assert.equal(textVector([]), undefined);
});

test('word vectors: every word of the file finds its row, as a Map built row by row found it; other words find none', () => {
  const bytes = readFileSync(new URL('../../data/word-vectors/glove-100d-50k.bin', import.meta.url));
  const count = bytes.readUInt32LE(4);
  const listed = bytes.toString('utf8', 12 + count * 4 + count * VECTOR_DIMS).split('\n');
  assert.equal(listed.length, count);
  assert.equal(tableSize(), count);
  const map = new Map(listed.map((w, i) => [w, i]));
  for (const [row, word] of listed.entries()) {
    assert.equal(wordRow(word), isStopWord(word) ? -1 : map.get(word), word);
    assert.equal(wordOfRow(row), word);
  }
  for (const other of ['', 'xyzzyq', 'Memory', 'memory ', 'plughh', 'é', '\n', 'memorymemory'])
    assert.equal(wordRow(other), isStopWord(other) ? -1 : (map.get(other) ?? -1), JSON.stringify(other));
});

test('word vectors: each row read from the file is the one the whole file holds, and only the recent ones stay in memory', () => {
  const bytes = readFileSync(new URL('../../data/word-vectors/glove-100d-50k.bin', import.meta.url));
  const count = bytes.readUInt32LE(4);
  const vectorsAt = 12 + count * 4;
  // One word's text vector is its row, scaled to unit length: the bytes in the file say what it must be.
  const expected = (row: number) => {
    const v = Array.from({ length: VECTOR_DIMS }, (_, d) => bytes.readInt8(vectorsAt + row * VECTOR_DIMS + d));
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const rows = Array.from({ length: 3 * RECENT_ROWS }, (_, k) => Math.floor((k * count) / (3 * RECENT_ROWS))).filter(
    (row) => wordRow(wordOfRow(row)) === row,
  );
  // Twice over: the second pass reads again the rows the first pushed out.
  for (const row of [...rows, ...rows.slice(0, 50)]) {
    const got = textVector([wordOfRow(row)]);
    assert.ok(got, wordOfRow(row));
    for (const [d, x] of expected(row).entries())
      assert.ok(Math.abs(got[d]! - x) < 1e-5, `${wordOfRow(row)}[${d}]: ${got[d]} against ${x}`);
  }
  assert.equal(heldRows(), RECENT_ROWS);
});

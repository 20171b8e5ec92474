import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { heldLists, NEIGHBOUR_FLOOR, neighboursOf, RECENT_LISTS } from './word-neighbours.js';
import { cosine, tableSize, textVector, wordOfRow, wordRow } from './word-vectors.js';

/** The closeness byte of a cosine, computed here from the vectors themselves. */
const byteOf = (c: number) => 2 + Math.round((253 * (Math.min(c, 1) - NEIGHBOUR_FLOOR)) / (1 - NEIGHBOUR_FLOOR));

test('word neighbours: close words are listed with their closeness, closest first; unrelated words are not', () => {
  const travel = neighboursOf(wordRow('travel'));
  const listed = new Map([...travel.rows].map((r, k) => [wordOfRow(r), travel.bytes[k]!]));
  const trip = cosine(textVector(['travel'])!, textVector(['trip'])!);
  assert.ok(trip > NEIGHBOUR_FLOOR, `travel/trip ${trip}`);
  assert.ok(Math.abs(listed.get('trip')! - byteOf(trip)) <= 1, `trip listed at ${listed.get('trip')}, cosine ${trip}`);
  assert.equal(listed.get('sandwich'), undefined);
  assert.ok(!listed.has('travel'), 'a word is not its own neighbour');
  for (let k = 1; k < travel.bytes.length; k++) assert.ok(travel.bytes[k - 1]! >= travel.bytes[k]!, 'closest first');
  assert.ok(travel.rows.length > 5 && travel.rows.length <= 256, `${travel.rows.length}`);
});

test('word neighbours: the most frequent words have no list and are in no list', () => {
  assert.equal(neighboursOf(wordRow('first')).rows.length, 0);
  const kids = neighboursOf(wordRow('kids'));
  assert.ok(kids.rows.length > 0);
  for (const r of kids.rows) assert.ok(r >= 100, wordOfRow(r));
});

test('word neighbours: every list is closest first (facets take the first word to reach an entry as its closest)', () => {
  for (let row = 0; row < tableSize(); row++) {
    const { bytes } = neighboursOf(row);
    for (let k = 0; k < bytes.length; k++)
      assert.ok(k === 0 || bytes[k - 1]! >= bytes[k]!, `${wordOfRow(row)}: ${bytes[k]} at ${k}`);
  }
});

test('word neighbours: each list read from the file is the one the whole file holds, and only the recent ones stay in memory', () => {
  const file = readFileSync(new URL('../../data/word-vectors/glove-100d-50k-neighbours.bin', import.meta.url));
  const count = file.readUInt32LE(4);
  const offset = (row: number) => file.readUInt32LE(16 + row * 4);
  const rowsAt = 16 + (count + 1) * 4;
  const total = offset(count);
  for (let row = count - 1; row >= 0; row -= 7) {
    const { rows, bytes } = neighboursOf(row);
    const from = offset(row);
    assert.equal(rows.length, offset(row + 1) - from);
    for (let k = 0; k < rows.length; k++) {
      assert.equal(rows[k], file.readUInt16LE(rowsAt + (from + k) * 2));
      assert.equal(bytes[k], file[rowsAt + total * 2 + from + k]);
    }
  }
  assert.equal(heldLists(), RECENT_LISTS);
});

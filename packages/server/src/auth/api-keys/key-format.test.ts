import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact } from '@cairn/contract/redaction';
import { displayParts, generateApiKey, hashApiKey, isWellFormedApiKey, KEY_LENGTH, KEY_PREFIX } from './key-format.js';

test('a generated key has the prefix, the length and a valid checksum', () => {
  const key = generateApiKey();
  assert.ok(key.startsWith(KEY_PREFIX));
  assert.equal(key.length, KEY_LENGTH);
  assert.ok(isWellFormedApiKey(key));
});

test('keys are unique and use all of base62', () => {
  const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
  assert.equal(keys.size, 2000);
  const chars = new Set([...keys].flatMap((k) => [...k.slice(KEY_PREFIX.length, -6)]));
  assert.equal(chars.size, 62);
});

test('a single changed character fails the checksum', () => {
  const key = generateApiKey();
  const i = KEY_PREFIX.length + 5;
  const flipped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
  assert.equal(isWellFormedApiKey(flipped), false);
});

test('malformed keys are refused', () => {
  for (const bad of [
    '',
    'cairn_tkn_',
    'Bearer x',
    `${generateApiKey()}x`,
    generateApiKey().replace('cairn_', 'cairm_'),
    `${generateApiKey().slice(0, -1)}!`,
  ]) {
    assert.equal(isWellFormedApiKey(bad), false, bad);
  }
});

test('the hash is stable and never contains the key', () => {
  const key = generateApiKey();
  assert.equal(hashApiKey(key), hashApiKey(key));
  assert.ok(!hashApiKey(key).includes(key.slice(KEY_PREFIX.length, 20)));
  assert.deepEqual(displayParts(key), { start: key.slice(0, 14), last4: key.slice(-4) });
});

test('a freshly minted key is caught by the shared redaction rules wherever it appears', () => {
  const key = generateApiKey();
  assert.equal(redact(`use ${key} please`).text, 'use [redacted:cairn-key] please');
  assert.ok(!redact(`Authorization: Bearer ${key}`).text.includes(key));
});

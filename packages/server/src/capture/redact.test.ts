import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey } from '../auth/api-keys/key-format.js';
import { redactSecrets } from './redact.js';
import { PLANTED_SECRETS, plantedSecretsText } from './planted-secrets.fixture.js';

test('every planted secret is gone, and the prose around it survives', () => {
  const { text, count } = redactSecrets(plantedSecretsText);
  for (const { secret, kind } of PLANTED_SECRETS) assert.ok(!text.includes(secret), `${kind} survived: ${secret.slice(0, 12)}…`);
  assert.ok(count >= PLANTED_SECRETS.length);
  assert.match(text, /deploy the billing service/);
  assert.match(text, /postgres:\/\/app:\[REDACTED:url-password\]@db\.internal:5432\/billing/);
  assert.match(text, /DB_PASSWORD=\[REDACTED:assigned-secret\]/);
});

test('a fresh Cairn key is redacted wherever it appears', () => {
  const key = generateApiKey();
  assert.equal(redactSecrets(`use ${key} please`).text, 'use [REDACTED:cairn-key] please');
  assert.equal(redactSecrets(`Authorization: Bearer ${key}`).text.includes(key), false);
});

test('redaction is idempotent and leaves ordinary text alone', () => {
  const once = redactSecrets(plantedSecretsText).text;
  assert.equal(redactSecrets(once).text, once);
  const plain = 'Always use pnpm. The password policy says 12 characters. See https://example.com/docs and sk-learn docs.';
  assert.deepEqual(redactSecrets(plain), { text: plain, count: 0, kinds: [] });
});

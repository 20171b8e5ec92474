import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventText, targetText } from './audit-page.js';

test('the Audit page names targets: people by name, invitations without their hash', () => {
  const names: Record<string, string> = { usr_1: 'Ada Lovelace' };
  const person = (id: string) => names[id] ?? id;
  assert.equal(targetText({ type: 'user', id: 'usr_1', name: null }, person), 'Ada Lovelace');
  assert.equal(
    targetText(
      { type: 'invite', id: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', name: null },
      person,
    ),
    'an invitation',
  );
  assert.equal(targetText({ type: 'entry', id: 'ent_1', name: 'Logging' }, person), 'Logging');
  assert.equal(targetText({ type: 'oauth_client', id: 'abc', name: null }, person), 'an oauth client');
  assert.equal(targetText({ type: 'datapack', id: 'dpk_1', name: null }, person), 'a datapack');
  assert.equal(targetText(null, person), '—');
});

test('the Audit page names events in words, not dotted codes', () => {
  assert.equal(eventText('entry.updated'), 'Entry changed');
  assert.equal(eventText('auth.sign_in_failed'), 'Sign-in failed');
  assert.equal(eventText('key.revoked'), 'API key revoked');
  // A kind a newer server records still reads as words.
  assert.equal(eventText('rules.imported_all'), 'Rules imported all');
});

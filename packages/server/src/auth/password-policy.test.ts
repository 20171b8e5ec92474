import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CairnError } from '../errors/cairn-error.js';
import { assertPasswordPolicy, PASSWORD_MIN_LENGTH } from './password-policy.js';

const ADVICE = /choose at least 10 characters that are not a common password, e\.g\. a few unrelated words/;

describe('password policy', () => {
  test('common, short and patterned passwords are refused with what to do instead', async () => {
    for (const password of [
      'password',
      '12345678',
      'password123456',
      'k3J9xq2Lm',
      'qwertyuiop',
      '1234567890',
      'aaaaaaaaaaaa',
      'Password123!',
      'P@ssw0rd2024',
      'evilpass123',
    ]) {
      await assert.rejects(assertPasswordPolicy(password), (error: unknown) => {
        assert.ok(error instanceof CairnError, password);
        assert.equal(error.code, 'invalid_input', password);
        assert.match(error.message, ADVICE, password);
        return true;
      });
    }
  });

  test('the length rule comes first and says how long the password was', async () => {
    assert.equal('k3J9xq2Lm'.length, PASSWORD_MIN_LENGTH - 1);
    await assert.rejects(assertPasswordPolicy('k3J9xq2Lm'), /too short \(9 characters\)/);
  });

  test('a password built from the email or name counts as easy to guess', async () => {
    await assert.doesNotReject(assertPasswordPolicy('margaret hamilton 1969'));
    await assert.rejects(
      assertPasswordPolicy('margaret hamilton 1969', ['margaret.hamilton@example.com', 'Margaret Hamilton 1969']),
      ADVICE,
    );
  });

  test('passphrases of unrelated words pass, and the passwords the tests use do too', async () => {
    for (const password of [
      'violet kettle orbit seven',
      'correct horse battery',
      'a long enough secret',
      'another long secret',
      'Tr0ub4dor&3x',
    ]) {
      await assert.doesNotReject(assertPasswordPolicy(password), password);
    }
  });

  test('too long is refused before any strength work', async () => {
    await assert.rejects(assertPasswordPolicy('x'.repeat(129)), /at most 128 characters/);
  });
});

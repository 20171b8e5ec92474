import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { CairnError } from '../errors/cairn-error.js';

/** Shortest password Cairn accepts. */
export const PASSWORD_MIN_LENGTH = 10;
/** Longest password Cairn accepts (also bounds the strength check's work). */
export const PASSWORD_MAX_LENGTH = 128;
/** zxcvbn score 3: about 10^8 guesses or more, out of reach of an online attack. */
const MIN_SCORE = 3;

const ADVICE = `choose at least ${PASSWORD_MIN_LENGTH} characters that are not a common password, e.g. a few unrelated words`;

// Module-level on purpose: the common-password dictionary (public data, no tenant's), loaded once per process.
let checker: Promise<ZxcvbnFactory> | undefined;

/** The dictionary is large: loaded on the first password set, once, never on sign-in. */
function strengthChecker(): Promise<ZxcvbnFactory> {
  checker ??= (async () => {
    const [{ ZxcvbnFactory }, common] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    return new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  })();
  checker.catch(() => (checker = undefined));
  return checker;
}

/**
 * Throws invalid_input unless the password is long enough and not common or easily guessed.
 * `context` (the email, the name) counts against the password, as an attacker would try it first.
 */
export async function assertPasswordPolicy(password: string, context: string[] = []): Promise<void> {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw new CairnError('invalid_input', `The password is too short (${password.length} characters): ${ADVICE}.`);
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw new CairnError('invalid_input', `The password is too long: use at most ${PASSWORD_MAX_LENGTH} characters.`);
  }
  const result = (await strengthChecker()).check(password, context.filter(Boolean));
  if (result.score < MIN_SCORE) {
    throw new CairnError(
      'invalid_input',
      `The password is too easy to guess (it is, or looks like, a common password or a simple pattern): ${ADVICE}.`,
    );
  }
}

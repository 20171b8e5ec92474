import type { RegexSource } from '../src/redaction/rule-types.js';

export class Untranslatable extends Error {}
/** RE2 source → JavaScript source and flags (`i` only when the whole pattern is case-insensitive). */
export function translate(re2: string): RegexSource;
/** Removes gitleaks' leading variable-name prefix and bounds `.*`, so matching stays near-linear in JavaScript. */
export function linearize<T extends RegexSource>(rule: T): T & { namePrefix?: true };

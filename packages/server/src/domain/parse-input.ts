import { cleanName } from '@cairn/contract/terminal';
import type { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';

/** Parses adapter input with a zod schema; a failure becomes an invalid_input error naming the fields. */
export function parse<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
    throw new CairnError('invalid_input', `Invalid input — ${problems}.`);
  }
  assertNoNul(result.data);
  return result.data;
}

/**
 * Refuses any string (or object key) holding U+0000. PostgreSQL cannot store it in text and
 * SQLite can, so without this the same input would be a 500 on one backend and stored on the other.
 */
export function assertNoNul(value: unknown, label = 'input'): void {
  const where = findNul(value);
  if (where !== undefined) throw new CairnError('invalid_input', nulMessage(where === '' ? label : where));
}

/** What to tell a caller whose `field` holds a NUL character. */
export function nulMessage(field: string): string {
  return `Invalid input — ${field}: contains a NUL character (\\u0000), which Cairn cannot store; remove it and try again.`;
}

/** The path (`a.b.0`) of the first string or key holding U+0000, '' for the value itself, or undefined when there is none. */
export function findNul(value: unknown, path: (string | number)[] = []): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, i]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, JSON.stringify(key)].join('.');
      const found = findNul(item, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * A name as it is stored (for zod's `overwrite`): control and bidirectional characters removed. A
 * NUL is left in, so that parse refuses it with the field named rather than storing it silently cut.
 */
export function storedName(text: string): string {
  return text.includes('\u0000') ? text : cleanName(text);
}

import type { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';

/** Parses adapter input with a zod schema; a failure becomes an invalid_input error naming the fields. */
export function parse<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
  throw new CairnError('invalid_input', `Invalid input — ${problems}.`);
}

import type { Context } from 'hono';
import { z } from 'zod';
import { parse } from '../../domain/parse-input.js';

const wholeNumber = z
  .string()
  .regex(/^\d{1,16}$/, 'must be a whole number (0, 1, 2, …)')
  .transform(Number);

/** A whole-number query parameter, or undefined when absent; "abc", "-1", "1.5" or "1e9" are invalid_input naming it. The domain checks the range. */
export function queryInt(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  return parse(z.object({ [name]: wholeNumber }), { [name]: raw })[name];
}

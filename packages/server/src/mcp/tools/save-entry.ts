import { z } from 'zod';
import { duplicateMessage, saveEntry, saveEntryInput } from '../../domain/entries.js';
import { entryLine, entryOut, entryShape, redactedShape, redactionNote } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Saves knowledge, refusing to store a near-duplicate twice. */
export const saveEntryTool = defineTool({
  name: 'save_entry',
  title: 'Save to Cairn',
  description:
    'Call when the user asks you to remember something: a preference, team standard, organization policy, decision or note. A near-duplicate comes back as "duplicate": update it, or set allowSimilar if yours differs. Never save secrets.',
  input: saveEntryInput,
  output: z.object({
    status: z.enum(['created', 'duplicate']),
    entry: entryShape,
    similarity: z.number().optional(),
    redacted: redactedShape,
    message: z.string(),
  }),
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, ctx) {
    const result = await saveEntry(ctx.deps, await ctx.access(), input);
    const outcome =
      result.status === 'created'
        ? `Saved ${entryLine(result.entry)}.`
        : `${duplicateMessage(result)} Existing entry: ${entryLine(result.entry)}.`;
    const message = outcome + redactionNote(result.redacted);
    return {
      structured: {
        status: result.status,
        entry: entryOut(result.entry),
        ...(result.status === 'duplicate' && { similarity: result.similarity }),
        redacted: result.redacted,
        message,
      },
      text: message,
    };
  },
});

import { z } from 'zod';
import { duplicateMessage, saveEntry, saveEntryInput } from '../../domain/entries.js';
import { entryLine, entryOut, entryShape, redactedShape, redactionNote } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Saves knowledge, refusing to store a near-duplicate twice. */
export const saveEntryTool = defineTool({
  name: 'save_entry',
  title: 'Save to Cairn',
  description:
    'Save a preference, standard, policy, decision or note to a Cairn datapack (your personal one unless you name another). If the datapack already holds the same or nearly the same entry, nothing is stored and the existing entry is returned (status "duplicate"): update it if yours says the same, or save again with allowSimilar: true if it is different knowledge. Never save secrets, keys or passwords: any found are replaced by [redacted:<rule>] markers and listed in `redacted`.',
  input: saveEntryInput,
  output: z.object({ status: z.enum(['created', 'duplicate']), entry: entryShape, similarity: z.number().optional(), redacted: redactedShape, message: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, ctx) {
    const result = await saveEntry(ctx.deps, await ctx.access(), input);
    const outcome = result.status === 'created' ? `Saved ${entryLine(result.entry)}.` : `${duplicateMessage(result)} Existing entry: ${entryLine(result.entry)}.`;
    const message = outcome + redactionNote(result.redacted);
    return {
      structured: { status: result.status, entry: entryOut(result.entry), ...(result.status === 'duplicate' && { similarity: result.similarity }), redacted: result.redacted, message },
      text: message,
    };
  },
});

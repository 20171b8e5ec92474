import { z } from 'zod';
import { updateEntry, updateEntryInput } from '../../domain/entries.js';
import { entryLine, entryOut, entryShape, redactedShape, redactionNote } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Changes an entry with an optimistic version check. */
export const updateEntryTool = defineTool({
  name: 'update_entry',
  title: 'Update a Cairn entry',
  description: 'Call to change an entry you have read, passing its version as expectedVersion.',
  input: updateEntryInput,
  output: z.object({ entry: entryShape, redacted: redactedShape }),
  annotations: { destructiveHint: false, openWorldHint: false },
  async run(input, ctx) {
    const { entry, redacted } = await updateEntry(ctx.deps, await ctx.access(), input);
    return {
      structured: { entry: entryOut(entry), redacted },
      text: `Updated ${entryLine(entry)}.${redactionNote(redacted)}`,
    };
  },
});

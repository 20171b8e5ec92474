import { z } from 'zod';
import { updateEntry, updateEntryInput } from '../../domain/entries.js';
import { entryLine, entryOut, entryShape, redactedShape, redactionNote } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Changes an entry with an optimistic version check. */
export const updateEntryTool = defineTool({
  name: 'update_entry',
  title: 'Update a Cairn entry',
  description:
    "Change an entry's title, content, kind or tags. Pass the version you read as expectedVersion; if someone changed the entry since, the update is refused and you should read it again. Earlier versions stay in its history.",
  input: updateEntryInput,
  output: z.object({ entry: entryShape, redacted: redactedShape }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, ctx) {
    const { entry, redacted } = await updateEntry(ctx.deps, await ctx.access(), input);
    return { structured: { entry: entryOut(entry), redacted }, text: `Updated ${entryLine(entry)}.${redactionNote(redacted)}` };
  },
});

import { z } from 'zod';
import { restoreEntry, restoreEntryInput } from '../../domain/trash.js';
import { entryLine, entryOut, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Brings back a deleted entry, or an earlier version of a live one, as a new version. */
export const restoreEntryTool = defineTool({
  name: 'restore_entry',
  title: 'Restore a Cairn entry',
  description: 'Call only when the user asks to undelete an entry, or, with version, to bring back an earlier one.',
  input: restoreEntryInput,
  output: z.object({
    entry: entryShape,
    restoredFrom: z.number().int().describe('The version whose content came back'),
    undeleted: z.boolean().describe('True when the entry came back from the trash'),
  }),
  annotations: { destructiveHint: false, openWorldHint: false },
  async run(input, ctx) {
    const { entry, restoredFrom, undeleted } = await restoreEntry(ctx.deps, await ctx.access(), input);
    const what = undeleted ? 'Restored from the trash' : `Restored version ${restoredFrom} of`;
    return {
      structured: { entry: entryOut(entry), restoredFrom, undeleted },
      text: `${what} ${entryLine(entry)} as version ${entry.version}.`,
    };
  },
});

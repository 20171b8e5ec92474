import { z } from 'zod';
import { restoreEntry, restoreEntryInput } from '../../domain/trash.js';
import { entryLine, entryOut, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Brings back a deleted entry, or an earlier version of a live one, as a new version. */
export const restoreEntryTool = defineTool({
  name: 'restore_entry',
  title: 'Restore a Cairn entry',
  description:
    'Bring back an entry the user deleted (it stays restorable in the trash for a number of days), or, with version, an earlier version of an entry (see get_entry with includeHistory). The restore is saved as a new version; history keeps every version. Only do this when the user asks. Refused if the datapack already holds a live entry with the same content.',
  input: restoreEntryInput,
  output: z.object({
    entry: entryShape,
    restoredFrom: z.number().int().describe('The version whose content came back'),
    undeleted: z.boolean().describe('True when the entry came back from the trash'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, ctx) {
    const { entry, restoredFrom, undeleted } = await restoreEntry(ctx.deps, await ctx.access(), input);
    const what = undeleted ? 'Restored from the trash' : `Restored version ${restoredFrom} of`;
    return { structured: { entry: entryOut(entry), restoredFrom, undeleted }, text: `${what} ${entryLine(entry)} as version ${entry.version}.` };
  },
});

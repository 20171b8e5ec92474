import { z } from 'zod';
import { deleteEntry } from '../../domain/entries.js';
import { defineTool } from '../tool-definition.js';

/** Deletes an entry (its history is kept). */
export const deleteEntryTool = defineTool({
  name: 'delete_entry',
  title: 'Delete a Cairn entry',
  description: 'Call only when the user asks to delete an entry; restore_entry can bring it back from the trash.',
  input: z.object({ id: z.string().describe('Entry id (ent_…)'), expectedVersion: z.number().int().min(1).optional() }),
  output: z.object({ id: z.string(), deleted: z.literal(true), version: z.number().int() }),
  annotations: { destructiveHint: true, openWorldHint: false },
  async run(input, ctx) {
    const entry = await deleteEntry(ctx.deps, await ctx.access(), input.id, input.expectedVersion);
    return {
      structured: { id: entry.id, deleted: true as const, version: entry.version },
      text: `Deleted "${entry.title}" (${entry.id}).`,
    };
  },
});

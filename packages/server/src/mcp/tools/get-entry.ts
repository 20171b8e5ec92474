import { z } from 'zod';
import { getEntry } from '../../domain/entries.js';
import { publicVersion } from '../../domain/entry-views.js';
import { entryOut, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

const versionShape = z.object({
  version: z.number().int(),
  change: z.enum(['create', 'update', 'delete']),
  kind: z.string(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  changedBy: z.string(),
  changedClient: z.string().nullable(),
  changedAt: z.string(),
});

/** Reads one entry, optionally with its version history. */
export const getEntryTool = defineTool({
  name: 'get_entry',
  title: 'Get a Cairn entry',
  description: 'Read one entry by id, with its provenance; set includeHistory to see every earlier version and who changed it.',
  input: z.object({ id: z.string().describe('Entry id (ent_…)'), includeHistory: z.boolean().default(false) }),
  output: z.object({ entry: entryShape, history: z.array(versionShape).optional() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, ctx) {
    const { entry, history } = await getEntry(ctx.deps, await ctx.access(), input.id, input.includeHistory);
    const structured = {
      entry: entryOut(entry),
      ...(history && { history: history.map(publicVersion) }),
    };
    return { structured, text: JSON.stringify(structured, null, 1) };
  },
});

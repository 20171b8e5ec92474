import { z } from 'zod';
import { getEntry, MAX_TURNS_AROUND } from '../../domain/entries.js';
import { entryReadView } from '../../domain/entry-views.js';
import { entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

const versionShape = z.object({
  version: z.number().int(),
  change: z.enum(['create', 'update', 'delete', 'restore']),
  restoredFrom: z.number().int().optional().describe('For a restore: the version it brought back'),
  kind: z.string(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  changedBy: z.string(),
  changedClient: z.string().nullable(),
  changedAt: z.string(),
  applies: entryShape.shape.applies.optional(),
  owner: z.string().optional(),
  reviewBy: z.string().nullable().optional(),
  expires: z.string().nullable().optional(),
});

/** Reads one entry, optionally with its version history. */
export const getEntryTool = defineTool({
  name: 'get_entry',
  title: 'Get a Cairn entry',
  description:
    'Call to read an entry in full (a search hit, a rule under mayAlsoApply); includeHistory adds earlier versions, around the turns next to a captured turn.',
  input: z.object({
    id: z.string().describe('Entry id (ent_…)'),
    includeHistory: z.boolean().default(false),
    around: z
      .number()
      .int()
      .min(0)
      .max(MAX_TURNS_AROUND)
      .default(0)
      .describe('Turns around a captured turn to include'),
  }),
  output: z.object({
    entry: entryShape,
    history: z.array(versionShape).optional(),
    conversation: z
      .array(z.object({ entry: entryShape, role: z.string().nullable(), speaker: z.string().nullable() }))
      .optional()
      .describe('The turns around it, in the order said, itself included'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, ctx) {
    const structured = entryReadView(
      await getEntry(ctx.deps, await ctx.access(), input.id, input.includeHistory, input.around),
    );
    return { structured, text: JSON.stringify(structured, null, 1) };
  },
});

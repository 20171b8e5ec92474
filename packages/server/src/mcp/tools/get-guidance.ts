import { z } from 'zod';
import { getGuidance, guidanceInput, guidanceText, guidanceView } from '../../domain/guidance.js';
import { datapackRefShape, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

const itemShape = z.object({
  entry: entryShape,
  datapack: datapackRefShape,
  reason: z.string().describe('Why it applies: "always", "file: <glob>", "project: <name>" or "topic"'),
  score: z.number().optional().describe('For a topic match, how well the task matches it'),
});

/** What applies to a task, with precedence, reasons and conflicts. */
export const getGuidanceTool = defineTool({
  name: 'get_guidance',
  title: 'Get guidance for a task',
  description:
    'Before starting a task, get the rules that apply to it: organization policies, then team standards, then personal preferences, in that order of precedence. Pass `files` (the paths you will read or change) and `project` (the repository or folder name) so rules scoped to them are included. Each rule says why it applies; where two rules on the same subject disagree, the conflict is listed and the stronger one wins. Rules that did not fit in maxChars are named in `omitted`: use search or get_entry for them.',
  input: guidanceInput,
  output: z.object({
    task: z.string(),
    levels: z.array(z.object({ scope: z.enum(['organization', 'team', 'personal']), label: z.string(), items: z.array(itemShape) })),
    conflicts: z.array(z.object({ topic: z.string(), prevails: itemShape, overridden: itemShape, rule: z.string() })),
    omitted: z.object({ count: z.number().int(), note: z.string() }).nullable(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, ctx) {
    const g = await getGuidance(ctx.deps, await ctx.access(), input);
    return { structured: guidanceView(g), text: guidanceText(g) };
  },
});

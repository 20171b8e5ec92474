import { z } from 'zod';
import { getGuidance, guidanceInput, guidanceView } from '../../domain/guidance.js';
import { guidanceText } from '../../domain/guidance-answer.js';
import { recordGuidance } from '../../domain/rule-usage.js';
import { datapackRefShape, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

const itemShape = z.object({
  entry: entryShape,
  datapack: datapackRefShape,
  reason: z.string().describe('Why it applies: "always", "file: <glob>", "project: <name>" or "topic"'),
  score: z.number().optional().describe('For a topic match, how well the task matches it'),
  reviewDue: z.literal(true).optional(),
});

/** What applies to a task, with precedence, reasons and conflicts. */
export const getGuidanceTool = defineTool({
  name: 'get_guidance',
  title: 'Get guidance for a task',
  description:
    'Call before a substantial task to get the rules that apply to it, strongest first. Pass `concerns`: 4-8 short phrases in your own words for what the work touches (e.g. for "add partial refunds to the refunds endpoint": ["refund endpoint change", "money amounts", "idempotency", "public API change"]; for "rename a column in the orders table": ["database migration", "column rename", "backward compatibility"]), `files` (paths you will read or change) and `project` (the repository name). Open a rule under `mayAlsoApply` with get_entry if it applies.',
  input: guidanceInput,
  output: z.object({
    task: z.string(),
    levels: z.array(
      z.object({ scope: z.enum(['organization', 'team', 'personal']), label: z.string(), items: z.array(itemShape) }),
    ),
    conflicts: z.array(z.object({ topic: z.string(), prevails: itemShape, overridden: itemShape, rule: z.string() })),
    omitted: z.object({ count: z.number().int(), note: z.string() }).nullable(),
    mayAlsoApply: z
      .array(
        z.object({
          id: z.string(),
          title: z.string(),
          level: z.enum(['organization', 'team', 'personal']),
          datapack: datapackRefShape,
          when: z.string().optional(),
          score: z.number(),
          reviewDue: z.literal(true).optional(),
        }),
      )
      .describe('The next candidates, not given in full: open one with get_entry if it applies'),
    more: z.number().int().describe("How many more rules matched some of the task's words beyond those named"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, ctx) {
    const access = await ctx.access();
    const g = await getGuidance(ctx.deps, access, input);
    recordGuidance(ctx.deps, access, g);
    return { structured: guidanceView(g), text: guidanceText(g) };
  },
});

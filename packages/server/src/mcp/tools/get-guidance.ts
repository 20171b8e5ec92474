import { z } from 'zod';
import { getGuidance, guidanceInput } from '../../domain/guidance.js';
import { datapackRefShape, entryLine, entryOut, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

const itemShape = z.object({ entry: entryShape, datapack: datapackRefShape });

/** What applies to a task, with precedence and conflicts. */
export const getGuidanceTool = defineTool({
  name: 'get_guidance',
  title: 'Get guidance for a task',
  description:
    'Before starting a task, get what applies to it: organization policies, then team standards, then personal preferences, in that order of precedence. Where two levels address the same topic, the conflict is listed and the higher level wins.',
  input: guidanceInput,
  output: z.object({
    task: z.string(),
    levels: z.array(z.object({ scope: z.enum(['organization', 'team', 'personal']), label: z.string(), items: z.array(itemShape) })),
    conflicts: z.array(z.object({ topic: z.string(), prevails: itemShape, overridden: itemShape, rule: z.string() })),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, ctx) {
    const g = await getGuidance(ctx.deps, await ctx.access(), input);
    const item = (i: { entry: Parameters<typeof entryOut>[0]; datapack: z.output<typeof datapackRefShape> }) => ({ entry: entryOut(i.entry), datapack: i.datapack });
    const structured = {
      task: g.task,
      levels: g.levels.map((l) => ({ scope: l.scope, label: l.label, items: l.items.map(item) })),
      conflicts: g.conflicts.map((c) => ({ topic: c.topic, prevails: item(c.prevails), overridden: item(c.overridden), rule: c.rule })),
    };
    const sections = g.levels.map(
      (l, i) => `${i + 1}. ${l.label}:\n${l.items.length ? l.items.map((it) => `   - ${entryLine(it.entry)}: ${it.entry.content.slice(0, 400)}`).join('\n') : '   (none apply)'}`,
    );
    const conflicts = g.conflicts.length ? `\nConflicts (higher level wins):\n${g.conflicts.map((c) => `- ${c.rule} [topic: ${c.topic}]`).join('\n')}` : '\nNo conflicts between levels.';
    return { structured, text: `Guidance for "${g.task}", strongest first:\n${sections.join('\n')}${conflicts}` };
  },
});

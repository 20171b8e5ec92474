import { z } from 'zod';
import { readableDatapacks } from '../../domain/datapacks.js';
import { searchEntries, searchEntriesInput } from '../../domain/entries.js';
import { datapackRefShape, entryLine, entryOut, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Ranked full-text search across the caller's datapacks. */
export const searchEntriesTool = defineTool({
  name: 'search',
  title: 'Search Cairn',
  description:
    'Search the knowledge in your Cairn datapacks (preferences, team standards, organization policies, notes) by plain words. Results are ranked by relevance. Use get_guidance instead when you need what applies to a task, with precedence.',
  input: searchEntriesInput,
  output: z.object({ results: z.array(z.object({ entry: entryShape, datapack: datapackRefShape, score: z.number() })) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, ctx) {
    const access = await ctx.access();
    const [hits, packs] = await Promise.all([searchEntries(ctx.deps, access, input), readableDatapacks(ctx.deps, access)]);
    const byId = new Map(packs.map((p) => [p.id, p]));
    const results = hits.map(({ entry, score }) => {
      const d = byId.get(entry.datapackId)!;
      return { entry: entryOut(entry), datapack: { id: d.id, name: d.name, scope: d.scope }, score: Math.round(score * 1000) / 1000 };
    });
    const text = results.length
      ? results.map((r, i) => `${i + 1}. ${entryLine(hits[i]!.entry)} in "${r.datapack.name}"\n   ${r.entry.content.slice(0, 300)}`).join('\n')
      : `Nothing in your datapacks matches "${input.query}".`;
    return { structured: { results }, text };
  },
});

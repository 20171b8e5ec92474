import { z } from 'zod';
import { searchEntriesInput } from '../../domain/entries.js';
import { searchResults } from '../../domain/entry-views.js';
import { datapackRefShape, entryLine, entryShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Ranked full-text search across the caller's datapacks. */
export const searchTool = defineTool({
  name: 'search',
  title: 'Search Cairn',
  description:
    'Call to find what the user or their teams saved in Cairn, and before save_entry (to update a match instead).',
  input: searchEntriesInput,
  output: z.object({
    results: z.array(z.object({ entry: entryShape, datapack: datapackRefShape, score: z.number() })),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, ctx) {
    const results = await searchResults(ctx.deps, await ctx.access(), input);
    const text = results.length
      ? results
          .map((r, i) => `${i + 1}. ${entryLine(r.entry)} in "${r.datapack.name}"\n   ${r.entry.content.slice(0, 300)}`)
          .join('\n')
      : input.query
        ? `Nothing in your datapacks matches "${input.query}".`
        : 'No entry in your datapacks passes these filters.';
    return { structured: { results }, text };
  },
});

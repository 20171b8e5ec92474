import { z } from 'zod';
import { createDatapack, createDatapackInput } from '../../domain/datapacks.js';
import { datapackOut, datapackShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Creates a personal, team or organization datapack. */
export const createDatapackTool = defineTool({
  name: 'create_datapack',
  title: 'Create a Cairn datapack',
  description: 'Call when the user asks for a new datapack: personal, team (teamId) or organization (admins only).',
  input: createDatapackInput,
  output: z.object({ datapack: datapackShape }),
  annotations: { destructiveHint: false, openWorldHint: false },
  async run(input, ctx) {
    const datapack = await createDatapack(ctx.deps, await ctx.access(), input);
    return {
      structured: { datapack: datapackOut(datapack) },
      text: `Created the ${datapack.scope} datapack "${datapack.name}" (id ${datapack.id}).`,
    };
  },
});

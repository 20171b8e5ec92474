import { z } from 'zod';
import { createDatapack, createDatapackInput } from '../../domain/datapacks.js';
import { datapackOut, datapackShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Creates a personal, team or organization datapack. */
export const createDatapackTool = defineTool({
  name: 'create_datapack',
  title: 'Create a Cairn datapack',
  description: 'Create a datapack: personal (only you), team (teamId of a team you belong to) or organization (organization admins only). Check list_datapacks first; names are unique per owner.',
  input: createDatapackInput,
  output: z.object({ datapack: datapackShape }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, ctx) {
    const datapack = await createDatapack(ctx.deps, await ctx.access(), input);
    return { structured: { datapack: datapackOut(datapack) }, text: `Created the ${datapack.scope} datapack "${datapack.name}" (id ${datapack.id}).` };
  },
});

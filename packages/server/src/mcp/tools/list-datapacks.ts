import { z } from 'zod';
import { listDatapacks } from '../../domain/datapacks.js';
import { datapackOut, datapackShape } from '../shapes.js';
import { defineTool } from '../tool-definition.js';

/** Lists the caller's datapacks: the answer to "list my datapacks". */
export const listDatapacksTool = defineTool({
  name: 'list_datapacks',
  title: 'List my datapacks',
  description: 'Call when the user asks to list their Cairn datapacks, or to find which one to save to or search in.',
  input: z.object({}),
  output: z.object({
    you: z.object({ id: z.string(), email: z.string(), name: z.string() }),
    datapacks: z.array(
      datapackShape.extend({ entryCount: z.number().int(), lastChangedAt: z.string(), writable: z.boolean() }),
    ),
    organizations: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })),
    teams: z.array(z.object({ id: z.string(), name: z.string(), organizationId: z.string() })),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_input, ctx) {
    const access = await ctx.access();
    const packs = await listDatapacks(ctx.deps, access);
    const you = { id: ctx.caller.userId, email: access.user?.email ?? '', name: access.user?.name ?? '' };
    const datapacks = packs.map((d) => ({
      ...datapackOut(d),
      entryCount: d.entryCount,
      lastChangedAt: d.lastChangedAt,
      writable: d.writable,
    }));
    const lines = datapacks.map(
      (d) =>
        `- ${d.name} — ${d.scope}, ${d.entryCount} ${d.entryCount === 1 ? 'entry' : 'entries'}, last change ${d.lastChangedAt}${d.writable ? '' : ', read-only'} (id ${d.id})`,
    );
    const text = `Datapacks of ${you.name || you.email} in Cairn (${datapacks.length}):\n${lines.join('\n')}`;
    return {
      structured: { you, datapacks, organizations: access.memberships.organizations, teams: access.memberships.teams },
      text,
    };
  },
});

import { Hono } from 'hono';
import { loadAccess } from '../../domain/access.js';
import type { DomainDeps } from '../../domain/deps.js';
import { exportFileName, exportLines, planCallerExport } from '../../domain/export.js';
import { importFile } from '../../domain/import.js';
import type { ApiEnv } from './api-auth.js';

/**
 * `GET /export`: JSON Lines of what the caller can read (`?datapack=ID` one datapack, `?mine=true`
 * only their own data, `?organization=ID|NAME` the whole organization for its admins), as a download.
 * Access is decided before the first byte; a failure mid-way cuts the stream before the end line,
 * so `cairn import` refuses the partial file instead of importing half of it.
 */
export function createExportRoutes(deps: DomainDeps): Hono<ApiEnv> {
  const routes = new Hono<ApiEnv>();
  routes.get('/export', async (c) => {
    const access = await loadAccess(deps, c.get('caller'));
    const datapack = c.req.query('datapack') || undefined;
    const organization = c.req.query('organization') || undefined;
    const plan = await planCallerExport(deps, access, { datapack, organization, mine: c.req.query('mine') === 'true' });
    const what = datapack
      ? (plan.datapacks[0]?.datapack.name ?? 'datapack')
      : (plan.selection.organization ?? (plan.selection.writtenBy ? 'my-data' : 'readable'));
    const lines = exportLines(deps, plan);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await lines.return(undefined);
      },
    });
    return c.body(body, 200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="${exportFileName(deps, what)}"`,
      'cache-control': 'no-store',
    });
  });
  // The body is a file GET /export (or cairn export) wrote, as it is; ?dryRun=true reports without writing.
  // Its body limit is in ../body-limits.ts; a larger file is for `cairn import` on the server.
  routes.post('/import', async (c) => {
    const lines = (await c.req.text()).split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    const access = await loadAccess(deps, c.get('caller'));
    return c.json(await importFile(deps, () => lines, { access, dryRun: c.req.query('dryRun') === 'true' }));
  });
  return routes;
}

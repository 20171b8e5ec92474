import { Hono } from 'hono';
import { loadAccess } from '../../domain/access.js';
import { listAudit } from '../../domain/audit-read.js';
import type { DomainDeps } from '../../domain/deps.js';
import { ruleUsage, ruleUsageAnswer } from '../../domain/rule-usage.js';
import type { ApiEnv } from './api-auth.js';
import { queryInt } from './query-params.js';

/**
 * `GET /audit`: the caller's own audit trail, or with `org` the organization's (admins and owners,
 * portal session only). Filters: actor (id or email), kind, since, until; paged with cursor.
 */
export function createAuditRoutes(deps: DomainDeps): Hono<ApiEnv> {
  const routes = new Hono<ApiEnv>();
  routes.get('/audit', async (c) => {
    const q = (name: string) => c.req.query(name);
    const raw = {
      org: q('org'),
      actor: q('actor'),
      kind: q('kind'),
      since: q('since'),
      until: q('until'),
      cursor: q('cursor'),
      limit: queryInt(c, 'limit'),
    };
    return c.json(await listAudit(deps, await loadAccess(deps, c.get('caller')), raw));
  });
  routes.get('/rules/usage', async (c) => {
    const raw = { datapack: c.req.query('datapack'), days: queryInt(c, 'days') };
    return c.json(await ruleUsage(deps, await loadAccess(deps, c.get('caller')), raw));
  });
  routes.get('/rules/usage/answers/:id', async (c) =>
    c.json(await ruleUsageAnswer(deps, await loadAccess(deps, c.get('caller')), c.req.param('id'))),
  );
  return routes;
}

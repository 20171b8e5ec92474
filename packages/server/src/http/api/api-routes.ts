import { Hono } from 'hono';
import type { OAuthUsage } from '../../auth/oauth/oauth-usage.js';
import { captureTurns } from '../../capture/capture-turns.js';
import { loadAccess } from '../../domain/access.js';
import { createDatapack, getDatapack, listDatapacks, updateDatapack } from '../../domain/datapacks.js';
import { deleteEntry, duplicateMessage, getEntry, listEntries, saveEntry, updateEntry } from '../../domain/entries.js';
import { entryReadView, publicEntry, searchResults } from '../../domain/entry-views.js';
import { listExpired } from '../../domain/expired.js';
import { getGuidance, guidanceView } from '../../domain/guidance.js';
import { listReplaced, reinstateEntry } from '../../domain/replaced.js';
import { recordGuidance } from '../../domain/rule-usage.js';
import { importRulesRequest } from '../../domain/rules-import/plan.js';
import { createSetupCode, exchangeSetupCode } from '../../domain/setup-codes.js';
import { deleteDatapack, deleteEntryForever, listTrash, restoreDatapack, restoreEntry } from '../../domain/trash.js';
import { CairnError } from '../../errors/cairn-error.js';
import type { RateLimits } from '../../rate-limits/rate-limits.js';
import type { ClientAddressOf } from '../client-address.js';
import { codeFailureLimit } from '../rate-limit/auth-limits.js';
import { requestLimitMessage, takeRequest } from '../rate-limit/request-limit.js';
import { tooManyJson } from '../rate-limit/too-many.js';
import {
  type AccountRouteSettings,
  createAccountRoutes,
  createPublicAccountRoutes,
  type PublicAccountRouteSettings,
} from './account-routes.js';
import { type ApiEnv, apiAuth, refuseWritesForReadOnlyKeys, requireSession } from './api-auth.js';
import { createAuditRoutes } from './audit-routes.js';
import { createExportRoutes } from './export-routes.js';
import { createKeySelfRoutes } from './key-self-routes.js';
import { createOAuthAppsRoutes } from './oauth-apps-routes.js';
import { queryInt } from './query-params.js';

/** What the JSON API is made with. */
export interface ApiRouteSettings extends AccountRouteSettings, PublicAccountRouteSettings {
  limits: RateLimits;
  clientAddress: ClientAddressOf;
  /** Counts OAuth apps' use for the connected-apps list; absent in tests that need none. */
  oauthUsage?: OAuthUsage;
}

/** `/api/v1`: the JSON API over the same domain verbs as the MCP tools and the CLI. */
export function createApiRoutes(settings: ApiRouteSettings): Hono<ApiEnv> {
  const { domain: deps, auth, keys, baseUrl, limits, clientAddress, oauthUsage } = settings;
  const origin = new URL(baseUrl).origin;
  const api = new Hono<ApiEnv>();
  // Guessable one-time secrets: failures are limited per address.
  api.use('/setup-codes/exchange', codeFailureLimit(limits, clientAddress, 'setup-code exchanges'));
  api.use('/signup', codeFailureLimit(limits, clientAddress, 'sign-ups'));
  // A stolen session must not turn into a password-guessing oracle: wrong current passwords count like failed codes.
  api.use('/me/password', codeFailureLimit(limits, clientAddress, 'password changes'));
  // The exchange is authenticated by the one-time code itself; it sits before the auth middleware.
  api.post('/setup-codes/exchange', async (c) => c.json(await exchangeSetupCode(deps, await c.req.json())));
  api.route('/', createPublicAccountRoutes(settings));
  api.use('*', apiAuth(auth, keys, origin), refuseWritesForReadOnlyKeys());
  api.use('*', async (c, next) => {
    const caller = c.get('caller');
    // The Connect dialog's status poll counts on its own budget, so an open dialog never locks the person out of their other calls.
    if (c.req.method === 'GET' && c.req.path.endsWith('/keys/connected') && caller.via === 'session') {
      const wait = await limits.connectionStatusPerUser.take(caller.userId);
      if (wait > 0)
        return tooManyJson(
          wait,
          `Too many connection checks (at most ${limits.connectionStatusPerUser.points} a minute); the Connect dialog tries again by itself.`,
        );
      return next();
    }
    const wait = await takeRequest(limits.requestsPerCredential, caller);
    if (wait > 0) return tooManyJson(wait, requestLimitMessage(caller, limits.requestsPerCredential.points));
    return next();
  });
  // Before the account routes, whose /keys/:id would otherwise take "self" for an id.
  api.route('/', createKeySelfRoutes(deps));
  api.route('/', createAccountRoutes(settings));
  api.route('/', createOAuthAppsRoutes(auth, deps, oauthUsage));
  api.route('/', createAuditRoutes(deps));
  api.route('/', createExportRoutes(deps));
  api.post('/setup-codes', async (c) =>
    c.json(await createSetupCode(deps, requireSession(c, 'Datapacks > Connect')), 201),
  );
  // Its 1 MiB body limit is in ../body-limits.ts with every other route's.
  api.post('/capture', async (c) => {
    const body = (await c.req.json()) as { turns?: unknown[] };
    const caller = c.get('caller');
    const wait = await limits.captureTurnsPerKey.take(
      caller.keyId ?? caller.userId,
      Array.isArray(body.turns) ? Math.max(body.turns.length, 1) : 1,
    );
    if (wait > 0) return tooManyJson(wait, 'Too many captured turns for this key.');
    return c.json(await captureTurns(deps, caller, body));
  });
  const access = (c: { get(key: 'caller'): ApiEnv['Variables']['caller'] }) => loadAccess(deps, c.get('caller'));

  api.get('/datapacks', async (c) => c.json({ datapacks: await listDatapacks(deps, await access(c)) }));
  api.post('/datapacks', async (c) =>
    c.json({ datapack: await createDatapack(deps, await access(c), await c.req.json()) }, 201),
  );
  api.patch('/datapacks/:id', async (c) =>
    c.json({ datapack: await updateDatapack(deps, await access(c), c.req.param('id'), await c.req.json()) }),
  );
  api.get('/datapacks/:id', async (c) => {
    return c.json({ datapack: await getDatapack(deps, await access(c), c.req.param('id')) });
  });
  api.delete('/datapacks/:id', async (c) =>
    c.json({ datapack: await deleteDatapack(deps, await access(c), c.req.param('id')) }),
  );
  api.post('/datapacks/:id/restore', async (c) =>
    c.json({ datapack: await restoreDatapack(deps, await access(c), c.req.param('id')) }),
  );
  // A repository's rule files (Cursor, Claude Code, AGENTS.md…) as rules; dryRun previews (docs/json-api.md).
  api.post('/datapacks/:id/rules/import', async (c) =>
    c.json(await importRulesRequest(deps, await access(c), c.req.param('id'), await c.req.json())),
  );
  api.get('/trash', async (c) => c.json(await listTrash(deps, await access(c), c.req.query('datapack'))));
  // Delete forever: only an entry already in the trash (DELETE /entries/:id moves a live one there).
  api.delete('/trash/entries/:id', async (c) => {
    await deleteEntryForever(deps, await access(c), c.req.param('id'));
    return c.body(null, 204);
  });
  api.get('/datapacks/:id/entries', async (c) => {
    const page = { limit: queryInt(c, 'limit'), offset: queryInt(c, 'offset') };
    return c.json({ entries: (await listEntries(deps, await access(c), c.req.param('id'), page)).map(publicEntry) });
  });
  api.get('/search', async (c) => {
    const list = (name: string) =>
      c.req
        .queries(name)
        ?.flatMap((v) => v.split(','))
        .filter(Boolean);
    const raw = {
      query: c.req.query('q') ?? '',
      datapack: c.req.query('datapack'),
      kinds: list('kind'),
      tags: list('tag'),
      scopes: list('scope'),
      author: c.req.query('author'),
      limit: queryInt(c, 'limit'),
      includeReplaced: c.req.query('replaced') === 'true' || undefined,
    };
    return c.json({ results: await searchResults(deps, await access(c), raw as Parameters<typeof searchResults>[2]) });
  });
  api.get('/guidance', async (c) => {
    const files = c.req.queries('file');
    const raw = {
      task: c.req.query('task') ?? '',
      files,
      concerns: c.req.queries('concern'),
      project: c.req.query('project'),
      maxChars: queryInt(c, 'maxChars'),
    };
    const who = await access(c);
    const g = await getGuidance(deps, who, raw);
    recordGuidance(deps, who, g, { session: c.req.query('session') ?? null });
    return c.json(guidanceView(g));
  });
  api.post('/entries', async (c) => {
    const result = await saveEntry(deps, await access(c), await c.req.json());
    if (result.status === 'created') return c.json({ ...result, entry: publicEntry(result.entry) }, 201);
    // Refused, so a script that checks only the status code cannot take it for a save; the existing entry comes along.
    const { entry, similarity, exact, redacted } = result;
    return c.json(
      {
        error: { code: 'duplicate', message: duplicateMessage(result) },
        status: 'duplicate',
        entry: publicEntry(entry),
        similarity,
        exact,
        redacted,
      },
      409,
    );
  });
  api.get('/entries/:id', async (c) => {
    return c.json(
      entryReadView(
        await getEntry(
          deps,
          await access(c),
          c.req.param('id'),
          c.req.query('history') === 'true',
          queryInt(c, 'around') ?? 0,
        ),
      ),
    );
  });
  api.patch('/entries/:id', async (c) => {
    const { entry, redacted } = await updateEntry(deps, await access(c), {
      ...(await c.req.json()),
      id: c.req.param('id'),
    });
    return c.json({ entry: publicEntry(entry), redacted });
  });
  api.get('/replaced', async (c) => c.json(await listReplaced(deps, await access(c), c.req.query('datapack'))));
  api.get('/expired', async (c) => c.json(await listExpired(deps, await access(c), c.req.query('datapack'))));
  api.post('/entries/:id/reinstate', async (c) =>
    c.json({ entry: publicEntry(await reinstateEntry(deps, await access(c), c.req.param('id'))) }),
  );
  api.post('/entries/:id/restore', async (c) => {
    const body = await optionalJson(c);
    const { entry, restoredFrom, undeleted } = await restoreEntry(deps, await access(c), {
      ...body,
      id: c.req.param('id'),
    });
    return c.json({ entry: publicEntry(entry), restoredFrom, undeleted });
  });
  api.delete('/entries/:id', async (c) => {
    return c.json({
      entry: publicEntry(await deleteEntry(deps, await access(c), c.req.param('id'), queryInt(c, 'expectedVersion'))),
    });
  });
  return api;
}

/** A JSON object body, or {} when there is none; anything else is invalid_input. */
async function optionalJson(c: { req: { text(): Promise<string> } }): Promise<Record<string, unknown>> {
  const text = (await c.req.text()).trim();
  if (text === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CairnError(
      'invalid_input',
      'Invalid input — the body must be a JSON object such as {"version": 2}, or empty.',
    );
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new CairnError(
      'invalid_input',
      'Invalid input — the body must be a JSON object such as {"version": 2}, or empty.',
    );
  return body as Record<string, unknown>;
}

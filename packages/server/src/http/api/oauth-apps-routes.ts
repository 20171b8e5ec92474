import { Hono } from 'hono';
import type { Auth } from '../../auth/better-auth.js';
import { CairnError } from '../../errors/cairn-error.js';
import { type ApiEnv, requireSession } from './api-auth.js';

/** An OAuth client a user has let in, as Settings > Connected apps lists it. */
export interface ConnectedApp {
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
  grantedAt: string | null;
  /** When the app last got a token from Cairn (each refresh counts). */
  lastUsedAt: string | null;
}

interface ClientRow {
  clientId: string;
  name?: string | null;
  uri?: string | null;
  redirectUris?: string[] | string | null;
}
interface ConsentRow {
  clientId: string;
  scopes?: string[] | string | null;
  createdAt?: Date | string | null;
  updatedAt?: Date | string | null;
}
interface TokenRow {
  clientId: string;
  createdAt?: Date | string | null;
  revoked?: Date | string | null;
}

/**
 * `/api/v1/oauth/*`: what the consent page shows about a client, and the user's connected OAuth
 * apps with revocation. Session only: an API key or OAuth token must not manage grants.
 */
export function createOAuthAppsRoutes(auth: Auth): Hono<ApiEnv> {
  const routes = new Hono<ApiEnv>();
  const sessionUser = (c: { get(key: 'caller'): ApiEnv['Variables']['caller'] }) => requireSession(c, 'Settings > Connected apps');
  const adapter = async () => (await auth.$context).adapter;
  const clientById = async (clientId: string) => (await adapter()).findOne<ClientRow>({ model: 'oauthClient', where: [{ field: 'clientId', value: clientId }] });

  routes.get('/oauth/clients/:clientId', async (c) => {
    sessionUser(c);
    const client = await clientById(c.req.param('clientId'));
    if (!client) throw new CairnError('not_found', 'This app is not registered with Cairn (any more). Start the connection again from the app.');
    return c.json({ client: { clientId: client.clientId, name: client.name || 'An unnamed app', uri: client.uri ?? null, redirectUris: list(client.redirectUris) } });
  });

  routes.get('/oauth/apps', async (c) => {
    const userId = sessionUser(c);
    const db = await adapter();
    const [consents, tokens] = await Promise.all([
      db.findMany<ConsentRow>({ model: 'oauthConsent', where: [{ field: 'userId', value: userId }] }),
      db.findMany<TokenRow>({ model: 'oauthAccessToken', where: [{ field: 'userId', value: userId }] }),
    ]);
    const live = tokens.filter((t) => !t.revoked);
    const ids = [...new Set([...consents.map((r) => r.clientId), ...live.map((t) => t.clientId)])];
    const apps: ConnectedApp[] = [];
    for (const clientId of ids) {
      const client = await clientById(clientId);
      const consent = consents.find((r) => r.clientId === clientId);
      const used = live.filter((t) => t.clientId === clientId).map((t) => iso(t.createdAt)).filter((d): d is string => d !== null).sort();
      apps.push({
        clientId,
        name: client?.name || 'An unnamed app',
        redirectUris: list(client?.redirectUris),
        scopes: list(consent?.scopes),
        grantedAt: iso(consent?.updatedAt ?? consent?.createdAt) ?? used[0] ?? null,
        lastUsedAt: used.at(-1) ?? null,
      });
    }
    apps.sort((a, b) => (b.grantedAt ?? '').localeCompare(a.grantedAt ?? ''));
    return c.json({ apps });
  });

  routes.delete('/oauth/apps/:clientId', async (c) => {
    const userId = sessionUser(c);
    const clientId = c.req.param('clientId');
    const db = await adapter();
    const mine = [{ field: 'userId', value: userId }, { field: 'clientId', value: clientId }];
    const consents = await db.deleteMany({ model: 'oauthConsent', where: mine });
    // Marked revoked (not deleted): the /mcp gate and the token endpoint refuse them at once.
    const now = new Date();
    const access = await db.updateMany({ model: 'oauthAccessToken', where: mine, update: { revoked: now } });
    const refresh = await db.updateMany({ model: 'oauthRefreshToken', where: mine, update: { revoked: now } });
    if (consents + access + refresh === 0) throw new CairnError('not_found', 'You have not connected this app; reload Settings > Connected apps.');
    return c.json({ revoked: { clientId, consents, accessTokens: access, refreshTokens: refresh } });
  });
  return routes;
}

function list(value: string[] | string | null | undefined): string[] {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string' || value === '') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) return parsed.filter((v): v is string => typeof v === 'string');
  } catch {
    // a space- or comma-separated list
  }
  return value.split(/[\s,]+/).filter(Boolean);
}

function iso(value: Date | string | null | undefined): string | null {
  if (!value) return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

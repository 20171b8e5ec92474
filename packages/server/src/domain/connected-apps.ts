import type { ConnectedApp } from '@cairn/contract';
import type { Auth } from '../auth/better-auth.js';
import { stringList } from '../auth/oauth/clients.js';
import { CairnError } from '../errors/cairn-error.js';
import type { OAuthUse } from '../store/types.js';

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

/** What the consent page shows about a client; not_found when it is not registered. */
export async function oauthClientInfo(
  auth: Auth,
  clientId: string,
): Promise<{ clientId: string; name: string; uri: string | null; redirectUris: string[] }> {
  const client = await clientById(auth, clientId);
  if (!client)
    throw new CairnError(
      'not_found',
      'This app is not registered with Cairn (any more). Start the connection again from the app.',
    );
  return {
    clientId: client.clientId,
    name: client.name || 'An unnamed app',
    uri: client.uri ?? null,
    redirectUris: stringList(client.redirectUris),
  };
}

/** The OAuth apps a user has let in (a consent or a live token), newest grant first. */
export async function listConnectedApps(
  auth: Auth,
  userId: string,
  usage: { stored: OAuthUse[]; pending: (clientId: string) => OAuthUse | undefined } = {
    stored: [],
    pending: () => undefined,
  },
): Promise<ConnectedApp[]> {
  const db = (await auth.$context).adapter;
  const [consents, tokens] = await Promise.all([
    db.findMany<ConsentRow>({ model: 'oauthConsent', where: [{ field: 'userId', value: userId }] }),
    db.findMany<TokenRow>({ model: 'oauthAccessToken', where: [{ field: 'userId', value: userId }] }),
  ]);
  // The latest use of each grant: written usage, or this instance's newer, unwritten one.
  const useOf = (clientId: string): OAuthUse | undefined => {
    const stored = usage.stored.find((u) => u.clientId === clientId);
    const pending = usage.pending(clientId);
    return pending && (!stored || pending.at >= stored.at) ? pending : stored;
  };
  const live = tokens.filter((t) => !t.revoked);
  const ids = [...new Set([...consents.map((r) => r.clientId), ...live.map((t) => t.clientId)])];
  const apps: ConnectedApp[] = [];
  for (const clientId of ids) {
    const client = await clientById(auth, clientId);
    const consent = consents.find((r) => r.clientId === clientId);
    const used = live
      .filter((t) => t.clientId === clientId)
      .map((t) => iso(t.createdAt))
      .filter((d): d is string => d !== null)
      .sort();
    apps.push({
      clientId,
      name: client?.name || 'An unnamed app',
      redirectUris: stringList(client?.redirectUris),
      scopes: stringList(consent?.scopes),
      grantedAt: iso(consent?.updatedAt ?? consent?.createdAt) ?? used[0] ?? null,
      lastUsedAt:
        [used.at(-1), useOf(clientId)?.at]
          .filter((d): d is string => !!d)
          .sort()
          .at(-1) ?? null,
      lastUsedClient: useOf(clientId)?.client ?? null,
    });
  }
  return apps.sort((a, b) => (b.grantedAt ?? '').localeCompare(a.grantedAt ?? ''));
}

/** Withdraws a user's grant to an app: consents deleted, tokens marked revoked; not_found when there was none. */
export async function revokeConnectedApp(
  auth: Auth,
  userId: string,
  clientId: string,
): Promise<{ clientId: string; consents: number; accessTokens: number; refreshTokens: number }> {
  const db = (await auth.$context).adapter;
  const mine = [
    { field: 'userId', value: userId },
    { field: 'clientId', value: clientId },
  ];
  const consents = await db.deleteMany({ model: 'oauthConsent', where: mine });
  // Marked revoked (not deleted): the /mcp gate and the token endpoint refuse them at once.
  const now = new Date();
  const accessTokens = await db.updateMany({ model: 'oauthAccessToken', where: mine, update: { revoked: now } });
  const refreshTokens = await db.updateMany({ model: 'oauthRefreshToken', where: mine, update: { revoked: now } });
  if (consents + accessTokens + refreshTokens === 0)
    throw new CairnError('not_found', 'You have not connected this app; reload Settings > Connected apps.');
  return { clientId, consents, accessTokens, refreshTokens };
}

async function clientById(auth: Auth, clientId: string): Promise<ClientRow | null> {
  return (await auth.$context).adapter.findOne<ClientRow>({
    model: 'oauthClient',
    where: [{ field: 'clientId', value: clientId }],
  });
}

function iso(value: Date | string | null | undefined): string | null {
  if (!value) return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

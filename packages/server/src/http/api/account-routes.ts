import { Hono } from 'hono';
import type { KeyVerifier } from '../../auth/api-keys/key-verifier.js';
import type { Auth } from '../../auth/better-auth.js';
import { loadAccess } from '../../domain/access.js';
import {
  changePassword,
  inviteSummary,
  renameSelf,
  type SignUpForm,
  signUp,
  signUpOpen,
} from '../../domain/accounts.js';
import { createApiKey, latestConnection, listApiKeys, revokeApiKey } from '../../domain/api-keys.js';
import type { DomainDeps } from '../../domain/deps.js';
import {
  addMemberToTeam,
  cancelInvite,
  changeMemberRole,
  createInvite,
  createTeamIn,
  listInvites,
  listMembers,
  listTeams,
  removeMember,
  removeTeamMemberIn,
  renameTeamIn,
} from '../../domain/organizations.js';
import { CairnError } from '../../errors/cairn-error.js';
import { type ApiEnv, requireSession } from './api-auth.js';

/** better-auth's session cookie, with the __Secure- prefix it takes over HTTPS. */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/;

/** What the account routes are made with. */
export interface AccountRouteSettings {
  domain: DomainDeps;
  auth: Auth;
  /** The public URL Cairn is reached at (BASE_URL). */
  baseUrl: string;
  keys: KeyVerifier;
}

/** What the routes before sign-in are made with; the portal reads the optional ones at /config. */
export interface PublicAccountRouteSettings extends Omit<AccountRouteSettings, 'keys'> {
  /** Whether the installer is published on npm (false: the portal shows the tarball command). */
  installerPublished?: boolean;
  oauthLoopbackAllowed?: boolean;
  pluginMarketplace?: string;
  oauthPinnedClients?: readonly string[];
}

/** Routes that need no sign-in: sign-up and what the portal must know before it. */
export function createPublicAccountRoutes({
  domain: deps,
  auth,
  baseUrl,
  installerPublished = false,
  oauthLoopbackAllowed = true,
  pluginMarketplace,
  oauthPinnedClients = [],
}: PublicAccountRouteSettings): Hono {
  const routes = new Hono();
  const origin = new URL(baseUrl).origin;
  routes.get('/config', async (c) =>
    c.json({
      // Whether a session cookie came along (it may have expired): without one the portal knows it is
      // signed out without asking /me, whose 401 every browser logs as a console error.
      sessionCookie: SESSION_COOKIE.test(c.req.header('cookie') ?? ''),
      baseUrl,
      mcpUrl: `${baseUrl}/mcp`,
      signUpOpen: await signUpOpen(deps),
      installerPublished,
      oauthLoopbackAllowed,
      oauthPinnedClients,
      ...(pluginMarketplace && { pluginMarketplace }),
    }),
  );
  // The link is the secret (a long random token): whoever holds it may read whose invitation it is.
  routes.get('/invites/:token', async (c) => c.json(await inviteSummary(deps, c.req.param('token'))));
  routes.post('/signup', async (c) => {
    const from = c.req.header('origin');
    if (from !== undefined && from !== origin)
      throw new CairnError('forbidden', 'Sign up from the Cairn portal itself.');
    const body = (await c.req.json()) as SignUpForm;
    const { user, organization } = await signUp(deps, auth, body);
    const signedIn = await auth.api.signInEmail({
      body: { email: user.email, password: body.password! },
      returnHeaders: true,
    });
    for (const cookie of signedIn.headers.getSetCookie()) c.header('Set-Cookie', cookie, { append: true });
    return c.json({ user, organization }, 201);
  });
  return routes;
}

/** Routes for a signed-in caller: who they are, their keys, their organization. */
export function createAccountRoutes({ domain: deps, auth, baseUrl, keys }: AccountRouteSettings): Hono<ApiEnv> {
  const routes = new Hono<ApiEnv>();
  const access = (c: { get(key: 'caller'): ApiEnv['Variables']['caller'] }) => loadAccess(deps, c.get('caller'));
  const sessionUser = (c: { get(key: 'caller'): ApiEnv['Variables']['caller'] }) =>
    requireSession(c, 'Settings > API Keys');
  // Organization changes that grant access: a portal session only, then the usual admin checks.
  const sessionAccess = (c: { get(key: 'caller'): ApiEnv['Variables']['caller'] }) => {
    requireSession(c, 'Settings > Organization');
    return access(c);
  };

  routes.get('/me', async (c) => {
    const a = await access(c);
    return c.json({ user: a.user, organizations: a.memberships.organizations, teams: a.memberships.teams });
  });
  // Your own account: a portal session only (a key cannot rename you or change your password).
  routes.patch('/me', async (c) => {
    const { name } = (await c.req.json()) as { name?: unknown };
    return c.json({ user: await renameSelf(deps, auth, requireSession(c, 'Settings > Account'), name) });
  });
  routes.post('/me/password', async (c) => {
    const cookies = await changePassword(
      deps,
      auth,
      requireSession(c, 'Settings > Account'),
      await c.req.json(),
      c.req.raw.headers,
    );
    for (const cookie of cookies) c.header('Set-Cookie', cookie, { append: true });
    return c.body(null, 204);
  });
  routes.get('/keys', async (c) =>
    c.json({ keys: await listApiKeys(deps, sessionUser(c), (id) => keys.pendingUse(id)) }),
  );
  routes.post('/keys', async (c) => {
    const { name, scope, expiresAt, expiresInDays } = (await c.req.json()) as {
      name?: string;
      scope?: unknown;
      expiresAt?: unknown;
      expiresInDays?: unknown;
    };
    return c.json(
      await createApiKey(deps, sessionUser(c), name ?? '', { scope, expiresAt, expiresInDays }, c.get('caller')),
      201,
    );
  });
  routes.delete('/keys/:id', async (c) =>
    c.json({ key: await revokeApiKey(deps, c.req.param('id'), sessionUser(c), c.get('caller')) }),
  );
  // The Connect dialog's "Waiting for your client…": which of my keys connected since the dialog made its command or key.
  routes.get('/keys/connected', async (c) => {
    const userId = requireSession(c, 'Datapacks > Connect');
    return c.json({
      connection: (await latestConnection(deps, userId, c.req.query('since'), (id) => keys.pendingUse(id))) ?? null,
    });
  });

  routes.get('/organizations/:id/members', async (c) =>
    c.json({ members: await listMembers(deps, await access(c), c.req.param('id')) }),
  );
  routes.patch('/organizations/:id/members/:userId', async (c) => {
    const { role } = (await c.req.json()) as { role?: unknown };
    return c.json({
      member: await changeMemberRole(
        deps,
        auth,
        await sessionAccess(c),
        c.req.param('id'),
        c.req.param('userId'),
        role,
      ),
    });
  });
  routes.get('/organizations/:id/teams', async (c) =>
    c.json({ teams: await listTeams(deps, await access(c), c.req.param('id')) }),
  );
  routes.post('/organizations/:id/teams', async (c) => {
    const { name } = (await c.req.json()) as { name?: unknown };
    return c.json({ team: await createTeamIn(deps, auth, await sessionAccess(c), c.req.param('id'), name) }, 201);
  });
  routes.post('/organizations/:id/invitations', async (c) => {
    const { role } = (await c.req.json().catch(() => ({}))) as { role?: unknown };
    const { token, expiresAt } = await createInvite(deps, await sessionAccess(c), c.req.param('id'), role);
    // From CAIRN_BASE_URL only: the request's Host header is the sender's to choose.
    return c.json({ inviteUrl: `${baseUrl}/signup?invite=${encodeURIComponent(token)}`, expiresAt }, 201);
  });
  routes.delete('/organizations/:id/members/:userId', async (c) => {
    await removeMember(deps, auth, await sessionAccess(c), c.req.param('id'), c.req.param('userId'));
    return c.body(null, 204);
  });
  routes.get('/organizations/:id/invitations', async (c) =>
    c.json({ invitations: await listInvites(deps, await sessionAccess(c), c.req.param('id')) }),
  );
  routes.delete('/organizations/:id/invitations/:inviteId', async (c) => {
    await cancelInvite(deps, await sessionAccess(c), c.req.param('id'), c.req.param('inviteId'));
    return c.body(null, 204);
  });
  routes.patch('/teams/:id', async (c) => {
    const { name } = (await c.req.json()) as { name?: unknown };
    return c.json({ team: await renameTeamIn(deps, auth, await sessionAccess(c), c.req.param('id'), name) });
  });
  routes.delete('/teams/:id/members/:userId', async (c) => {
    await removeTeamMemberIn(deps, auth, await sessionAccess(c), c.req.param('id'), c.req.param('userId'));
    return c.body(null, 204);
  });
  routes.post('/teams/:id/members', async (c) => {
    const { userId } = (await c.req.json()) as { userId?: string };
    await addMemberToTeam(deps, auth, await sessionAccess(c), c.req.param('id'), userId ?? '');
    return c.body(null, 204);
  });
  return routes;
}

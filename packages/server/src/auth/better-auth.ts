import { oauthProvider } from '@better-auth/oauth-provider';
import { type AuthContext, type BetterAuthOptions, betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { getOrgAdapter, organization } from 'better-auth/plugins/organization';
import type { Kysely } from 'kysely';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import { isServerBusy } from '../errors/server-busy.js';
import type { Logger } from '../log/logger.js';
import type { CimdMetadata } from './oauth/cimd-document.js';
import { AUTH_BASE_PATH, oauthProviderOptions } from './oauth/oauth-options.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password-policy.js';

/** The same options object goes to organization() and getOrgAdapter(). */
const orgOptions = {
  // An automatic team per organization would give every member a team datapack they never asked for.
  teams: { enabled: true, defaultTeam: { enabled: false } },
  // Organizations come from the first sign-up and the CLI (server-side calls), never from a user's request.
  allowUserToCreateOrganization: false,
} as const;

/** Settings better-auth needs from Cairn. */
export interface AuthSettings {
  db: Kysely<any>;
  dialect: 'sqlite' | 'postgres';
  secret: string;
  baseUrl: string;
  log: Logger;
  /** Test-only: lets the CIMD fetch reach http loopback documents (CAIRN_OAUTH_CIMD_ALLOW_LOOPBACK_FOR_TESTS). */
  cimdAllowLoopbackForTests?: boolean;
  /** Operator setting CAIRN_OAUTH_ALLOW_LOOPBACK, applied to CIMD clients' redirect URIs. */
  oauthAllowLoopback?: boolean;
  /** Counts a Client ID Metadata Document fetch against the limit of the address that sent `request` (the one better-auth is serving; none in an auth.api call): 0 to go ahead, else seconds to wait. */
  cimdBeforeFetch?: (request: Request | undefined) => Promise<number>;
  /** The operator's pinned Client ID Metadata Documents (CAIRN_OAUTH_PINNED_CLIENTS), checked at start-up: never fetched. */
  cimdPinned?: ReadonlyMap<string, CimdMetadata>;
}

function authOptions(s: AuthSettings) {
  return {
    appName: 'Cairn',
    // One Kysely for better-auth and Cairn: on SQLite two wrappers over one connection collide in transactions.
    database: { db: s.db, type: s.dialect, transaction: true },
    secret: s.secret,
    baseURL: s.baseUrl,
    basePath: AUTH_BASE_PATH,
    // Users are created only by Cairn (createUser: first sign-up, invitations, CLI), never by better-auth's
    // sign-up endpoint; the /api/auth allow-list hides it too (defence in depth).
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
    },
    telemetry: { enabled: false },
    // Unexpected errors (a lost database above all) reach Cairn's error handler, which answers 503 for an
    // outage, instead of becoming better-auth's bare 500 and a stack trace on the console.
    onAPIError: { throw: true },
    logger: {
      level: 'warn',
      log: (level: string, message: string, ...args: unknown[]) => authLog(s, level, message, args),
    },
    plugins: [
      organization(orgOptions),
      oauthProvider(
        oauthProviderOptions(s.baseUrl, {
          guard: { policy: s.cimdAllowLoopbackForTests ? { allowHttp: true, allowLoopback: true } : {} },
          allowLoopbackRedirects: s.oauthAllowLoopback ?? true,
          ...(s.cimdBeforeFetch && { beforeFetch: s.cimdBeforeFetch }),
          ...(s.cimdPinned && { pinned: s.cimdPinned }),
        }),
      ),
    ],
  } satisfies BetterAuthOptions;
}

// better-auth stores string[] fields as JSON text on SQLite, then its own schema check calls that a
// type mismatch: seventeen lines on every start that read like corruption. Only that false alarm is dropped.
const SQLITE_ARRAY_FALSE_ALARM = /has a different type in the database\. Expected string\[\] but got TEXT\.$/;

function authLog(s: AuthSettings, level: string, message: string, args: unknown[] = []): void {
  if (s.dialect === 'sqlite' && SQLITE_ARRAY_FALSE_ALARM.test(message)) return;
  // A lost database is logged once per outage by the store, not once per request here.
  if (args.some((a) => isDatabaseUnavailable(a) || isServerBusy(a))) return;
  if (level === 'error') s.log.error(`auth: ${message}`);
  else s.log.warn(`auth: ${message}`);
}

/** Creates its tables if needed (idempotent), then the better-auth instance. */
export async function createAuth(s: AuthSettings) {
  const options = authOptions(s);
  // Migrate before betterAuth(): it checks the schema at construction and would log a spurious mismatch.
  const plan = await getMigrations(options);
  await plan.runMigrations();
  const auth = betterAuth(options);
  // Join the schema check betterAuth() starts in the background, so a short-lived command never
  // closes the database under it.
  const ctx = await auth.$context;
  await ctx.checkSchema?.();
  return auth;
}

/** The better-auth instance Cairn uses. */
export type Auth = Awaited<ReturnType<typeof createAuth>>;

/** Adds a user to a team server-side (the public endpoint needs a session). */
export async function addTeamMember(auth: Auth, input: { teamId: string; userId: string }): Promise<void> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  await getOrgAdapter(ctx, orgOptions).findOrCreateTeamMember(input);
}

/**
 * Sets an organization member's role through better-auth's organization adapter, like every other
 * membership write; false when the user is not a member.
 */
export async function setMemberRole(
  auth: Auth,
  input: { organizationId: string; userId: string; role: string },
): Promise<boolean> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  const orgs = getOrgAdapter(ctx, orgOptions);
  const member = await orgs.findMemberByOrgId({ userId: input.userId, organizationId: input.organizationId });
  if (!member) return false;
  await orgs.updateMember(member.id, input.role);
  return true;
}

/** Removes a member from an organization and its teams; false when the user is not a member. */
export async function removeMember(auth: Auth, input: { organizationId: string; userId: string }): Promise<boolean> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  const orgs = getOrgAdapter(ctx, orgOptions);
  const member = await orgs.findMemberByOrgId({ userId: input.userId, organizationId: input.organizationId });
  if (!member) return false;
  await orgs.deleteMember({ memberId: member.id, organizationId: input.organizationId, userId: input.userId });
  return true;
}

/** Takes a user out of a team. */
export async function removeTeamMember(auth: Auth, input: { teamId: string; userId: string }): Promise<void> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  await getOrgAdapter(ctx, orgOptions).removeTeamMember(input);
}

/** Renames a team. */
export async function renameTeam(auth: Auth, teamId: string, name: string): Promise<void> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  await getOrgAdapter(ctx, orgOptions).updateTeam(teamId, { name });
}

/**
 * Changes the signed-in user's password after checking the current one; every other session of
 * theirs ends, and the answer's cookies carry the fresh session. False when the current one is wrong.
 */
export async function changeOwnPassword(
  auth: Auth,
  input: { currentPassword: string; newPassword: string; headers: Headers },
): Promise<{ changed: boolean; cookies: string[] }> {
  try {
    const result = await auth.api.changePassword({
      body: { currentPassword: input.currentPassword, newPassword: input.newPassword, revokeOtherSessions: true },
      headers: input.headers,
      returnHeaders: true,
    });
    return { changed: true, cookies: result.headers.getSetCookie() };
  } catch (error) {
    if ((error as { body?: { code?: string } }).body?.code === 'INVALID_PASSWORD')
      return { changed: false, cookies: [] };
    throw error;
  }
}

/** Sets a user's display name. */
export async function setUserName(auth: Auth, userId: string, name: string): Promise<void> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  await ctx.internalAdapter.updateUser(userId, { name });
}

/** Replaces a user's password (already checked against the policy) and ends every session they have. */
export async function replacePassword(auth: Auth, userId: string, password: string): Promise<void> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  await ctx.internalAdapter.updatePassword(userId, await ctx.password.hash(password));
  await ctx.internalAdapter.deleteUserSessions(userId);
}

/**
 * Creates a user with an email-and-password account, server-side: what better-auth's sign-up does,
 * without its endpoint (disabled) and without signing anyone in. The caller checks the password policy.
 */
export async function createCredentialUser(
  auth: Auth,
  input: { email: string; name: string; password: string },
): Promise<{ id: string; email: string; name: string }> {
  const ctx = (await auth.$context) as unknown as AuthContext;
  const hash = await ctx.password.hash(input.password);
  const user = await ctx.internalAdapter.createUser(
    { email: input.email, name: input.name, emailVerified: false },
    { method: 'email-password' },
  );
  try {
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: 'credential',
      accountId: user.id,
      password: hash,
    });
  } catch (error) {
    await ctx.internalAdapter.deleteUser(user.id);
    throw error;
  }
  return { id: user.id, email: user.email, name: user.name };
}

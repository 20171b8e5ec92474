import { z } from 'zod';
import {
  type Auth,
  changeOwnPassword,
  createCredentialUser,
  replacePassword,
  setUserName,
} from '../auth/better-auth.js';
import { assertPasswordPolicy } from '../auth/password-policy.js';
import { CairnError } from '../errors/cairn-error.js';
import type { UserRecord } from '../store/types.js';
import { audit } from './audit.js';
import { ensurePersonalDatapack } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { hashInviteToken } from './organizations.js';
import { parse } from './parse-input.js';

/** Input of createUser. */
export const createUserInput = z.object({
  email: z.email('must be an email address').transform((e) => e.toLowerCase()),
  name: z.string().trim().min(1).max(100).optional(),
  // Length and strength are the password policy's (assertPasswordPolicy), with one message.
  password: z.string(),
  org: z.string().trim().min(1).max(100).optional(),
  /** Join the existing organization named by `org` (the CLI's --join); without it, an existing name is an error. */
  join: z.boolean().optional(),
  invite: z.string().trim().min(1).max(200).optional(),
  /** The open first sign-up: refused if someone else became the first user meanwhile. */
  onlyIfFirst: z.boolean().optional(),
});

/** A created user and the organization they belong to. */
export interface CreatedUser {
  user: UserRecord;
  organization: { id: string; name: string; role: 'owner' | 'admin' | 'member'; owners: string[] };
}

/** What the portal's sign-up form sends. */
export interface SignUpForm {
  email?: string;
  name?: string;
  password?: string;
  invite?: string;
  organization?: string;
}

/** Whether anyone may sign up without an invitation: only while this Cairn has no user. */
export async function signUpOpen(deps: DomainDeps): Promise<boolean> {
  return (await deps.store.countUsers()) === 0;
}

/**
 * The portal's sign-up policy: the first person to sign up owns a new organization; after that,
 * people join only with an invitation (the operator's CLI can still create users).
 */
export async function signUp(deps: DomainDeps, auth: Auth, form: SignUpForm): Promise<CreatedUser> {
  if (!form.invite && !(await signUpOpen(deps))) {
    throw new CairnError(
      'forbidden',
      'This Cairn already has users: people join by invitation. Ask an organization admin for an invite link.',
    );
  }
  return createUser(deps, auth, {
    email: form.email ?? '',
    name: form.name,
    password: form.password ?? '',
    invite: form.invite,
    org: form.invite ? undefined : form.organization,
    onlyIfFirst: !form.invite,
  });
}

/**
 * Creates a user with a password and a personal datapack. With an invitation the user joins the
 * inviting organization; otherwise the user owns a new organization, or (only when asked with
 * `join`) joins an existing one as a member: never silently someone else's organization.
 */
export async function createUser(
  deps: DomainDeps,
  auth: Auth,
  raw: z.input<typeof createUserInput>,
): Promise<CreatedUser> {
  const input = parse(createUserInput, raw);
  // The invitation is checked before the email, so a bad invite says nothing about who has an account.
  const plan = input.invite
    ? await planFromInvite(deps, input.invite)
    : await planOrganization(deps, input.org, input.join === true);
  await assertPasswordPolicy(input.password, [
    input.email,
    input.email.split('@')[0]!,
    input.name ?? '',
    plan.join?.name ?? plan.create ?? '',
    'cairn',
  ]);
  if (await deps.store.findUserByEmail(input.email))
    throw new CairnError('conflict', `A user with the email ${input.email} already exists.`);
  const name = input.name ?? input.email.split('@')[0]!;
  const user = await createCredentialUser(auth, { email: input.email, name, password: input.password });
  const ctx = await auth.$context;
  try {
    if (input.onlyIfFirst && (await deps.store.countUsers()) > 1) {
      throw new CairnError(
        'forbidden',
        'Someone else created the first account a moment ago: people now join by invitation. Ask an organization admin for an invite link.',
      );
    }
    if (plan.inviteHash && !(await deps.store.consumeInvite(plan.inviteHash, user.id, deps.now()))) {
      throw new CairnError(
        'conflict',
        'This invitation was used by someone else a moment ago. Ask your admin for a new invite link.',
      );
    }
    const organization = plan.join
      ? await joinOrganization(deps, auth, plan.join, user.id, plan.role ?? 'member')
      : await createOrganization(deps, auth, plan.create, user.id, user.email);
    await ensurePersonalDatapack(deps, user.id);
    if (plan.inviteHash)
      audit(deps, {
        kind: 'invite.accepted',
        actor: { userId: user.id, email: user.email },
        organizationId: plan.join?.id,
        target: { type: 'invite', id: plan.inviteHash },
      });
    return { user, organization };
  } catch (error) {
    await ctx.internalAdapter.deleteUser(user.id); // nothing half-made stays behind
    throw error;
  }
}

type OrganizationPlan =
  | { join: { id: string; name: string }; role?: 'member' | 'admin'; inviteHash?: string; create?: undefined }
  | { join?: undefined; role?: undefined; inviteHash?: undefined; create: string };

/** What an invite link's page may say before sign-up: whose organization, who invited; or that it is not valid. */
export async function inviteSummary(
  deps: DomainDeps,
  token: string,
): Promise<{ valid: false } | { valid: true; organization: string; invitedBy: string; role: 'member' | 'admin' }> {
  if (token.length === 0 || token.length > 200) return { valid: false };
  const invite = await deps.store.findInvite(hashInviteToken(token), deps.now());
  const org = invite && (await deps.store.listOrganizations()).find((o) => o.id === invite.organizationId);
  if (!invite || !org) return { valid: false };
  const inviter = await deps.store.getUser(invite.createdBy);
  return { valid: true, organization: org.name, invitedBy: inviter?.name || 'an admin', role: invite.role };
}

async function planFromInvite(deps: DomainDeps, token: string): Promise<OrganizationPlan> {
  const inviteHash = hashInviteToken(token);
  const invite = await deps.store.findInvite(inviteHash, deps.now());
  const org = invite && (await deps.store.listOrganizations()).find((o) => o.id === invite.organizationId);
  if (!invite || !org)
    throw new CairnError(
      'invalid_input',
      'This invite link is not valid: it was used already, has expired (links last 7 days) or was cut short. Ask your admin for a new one.',
    );
  return { join: org, role: invite.role, inviteHash };
}

async function planOrganization(
  deps: DomainDeps,
  requested: string | undefined,
  join: boolean,
): Promise<OrganizationPlan> {
  const orgs = await deps.store.listOrganizations();
  if (!requested) {
    if (join) throw new CairnError('invalid_input', 'Name the organization to join: --org NAME --join.');
    if (orgs.length === 0) return { create: 'My organization' };
    const known = await Promise.all(orgs.map(async (o) => `"${o.name}" (${await ownedBy(deps, o.id)})`));
    throw new CairnError(
      'invalid_input',
      `Organizations exist already: ${known.join(', ')}. Say which one: --org NAME --join adds the user to an existing organization as a member; --org NEW-NAME creates a new one.`,
    );
  }
  const matches = orgs.filter((o) => o.name.toLowerCase() === requested.toLowerCase());
  if (matches.length === 0) {
    if (join)
      throw new CairnError(
        'not_found',
        `There is no organization named "${requested}" to join. Leave out --join to create it, or check the name: ${orgs.map((o) => `"${o.name}"`).join(', ') || 'none exist yet'}.`,
      );
    return { create: requested };
  }
  if (matches.length > 1)
    throw new CairnError(
      'conflict',
      `Several organizations are named "${requested}"; add the user through an invite link from the right one instead.`,
    );
  const org = matches[0]!;
  if (!join) {
    throw new CairnError(
      'conflict',
      `An organization named "${org.name}" exists already (${await ownedBy(deps, org.id)}). To add the user to it as a member, run the command again with --join; to create a separate organization, choose another --org name.`,
    );
  }
  return { join: org };
}

/** "owners: a@x, b@y": who an operator is about to add someone to. */
async function ownedBy(deps: DomainDeps, organizationId: string): Promise<string> {
  const owners = await ownersOf(deps, organizationId);
  return owners.length ? `owners: ${owners.join(', ')}` : 'no owners';
}

async function ownersOf(deps: DomainDeps, organizationId: string): Promise<string[]> {
  return (await deps.store.listOrgMembers(organizationId))
    .filter((m) => m.role.split(',').some((r) => r.trim() === 'owner'))
    .map((m) => m.email);
}

async function joinOrganization(
  deps: DomainDeps,
  auth: Auth,
  org: { id: string; name: string },
  userId: string,
  role: 'member' | 'admin',
): Promise<CreatedUser['organization']> {
  await auth.api.addMember({ body: { organizationId: org.id, userId, role } });
  return { id: org.id, name: org.name, role, owners: await ownersOf(deps, org.id) };
}

async function createOrganization(
  deps: DomainDeps,
  auth: Auth,
  name: string,
  userId: string,
  email: string,
): Promise<CreatedUser['organization']> {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'org';
  const slug = `${base}-${deps.newId('dpk').slice(-6)}`;
  const org = await auth.api.createOrganization({ body: { name, slug, userId } });
  if (!org) throw new Error('better-auth returned no organization');
  const now = deps.now();
  await deps.store.insertDatapack({
    id: deps.newId('dpk'),
    scope: 'organization',
    ownerId: org.id,
    organizationId: org.id,
    name,
    description: `Policies and shared knowledge of ${name}`,
    createdBy: userId,
    createdAt: now,
    updatedAt: now,
  });
  return { id: org.id, name: org.name, role: 'owner', owners: [email] };
}

/**
 * The operator's password reset (`cairn users reset-password`): the new password must pass the same
 * policy as at sign-up, and every session of the user ends, so whoever held the old one is signed out.
 */
export async function resetPassword(
  deps: DomainDeps,
  auth: Auth,
  email: string,
  password: string,
): Promise<UserRecord> {
  const user = await deps.store.findUserByEmail(email.trim().toLowerCase());
  if (!user)
    throw new CairnError(
      'not_found',
      `No user with the email ${email}; list who exists in the portal under Settings > Organization.`,
    );
  await assertPasswordPolicy(password, [user.email, user.email.split('@')[0]!, user.name, 'cairn']);
  await replacePassword(auth, user.id, password);
  audit(deps, { kind: 'account.password_reset', target: { type: 'user', id: user.id, name: user.email } });
  return user;
}

const displayName = z
  .string()
  .trim()
  .min(1, 'give a name')
  .max(100, 'at most 100 characters')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (NUL above all) are what is refused
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'a name has no control characters');

/** Renames the caller as others see them in the portal and in provenance. */
export async function renameSelf(deps: DomainDeps, auth: Auth, userId: string, rawName: unknown): Promise<UserRecord> {
  const name = parse(displayName, rawName);
  await setUserName(auth, userId, name);
  return (await deps.store.getUser(userId))!;
}

/**
 * Changes the caller's own password: the current one must be right and the new one pass the
 * sign-up policy; their other sessions end. Returns the fresh session's cookies.
 */
export async function changePassword(
  deps: DomainDeps,
  auth: Auth,
  userId: string,
  raw: unknown,
  headers: Headers,
): Promise<string[]> {
  const { currentPassword, newPassword } = parse(
    z.object({ currentPassword: z.string().min(1, 'give your current password'), newPassword: z.string() }),
    raw,
  );
  const user = (await deps.store.getUser(userId))!;
  await assertPasswordPolicy(newPassword, [user.email, user.email.split('@')[0]!, user.name, 'cairn', currentPassword]);
  const { changed, cookies } = await changeOwnPassword(auth, { currentPassword, newPassword, headers });
  audit(deps, {
    kind: 'account.password_changed',
    actor: { userId, email: user.email },
    credential: { type: 'session', id: null, name: null },
    outcome: changed ? 'success' : 'failure',
  });
  if (!changed) throw new CairnError('forbidden', 'Your current password is not right; nothing was changed.');
  return cookies;
}

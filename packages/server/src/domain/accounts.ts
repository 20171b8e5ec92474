import { z } from 'zod';
import { type Auth, addTeamMember } from '../auth/better-auth.js';
import { CairnError } from '../errors/cairn-error.js';
import type { UserRecord } from '../store/types.js';
import { ensurePersonalDatapack } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { hashInviteToken } from './organizations.js';
import { parse } from './parse-input.js';

/** Input of createUser. */
export const createUserInput = z.object({
  email: z.email('must be an email address').transform((e) => e.toLowerCase()),
  name: z.string().trim().min(1).max(100).optional(),
  password: z.string().min(8, 'must be at least 8 characters').max(128),
  org: z.string().trim().min(1).max(100).optional(),
  invite: z.string().trim().min(1).max(200).optional(),
});

/** A created user and the organization they belong to. */
export interface CreatedUser {
  user: UserRecord;
  organization: { id: string; name: string; role: 'owner' | 'admin' | 'member' };
}

/**
 * Creates a user with a password and a personal datapack. The first user (or anyone naming an
 * organization that does not exist yet) owns a new organization with its own datapack; otherwise
 * the user joins the named organization, or the only one there is, as a member.
 */
export async function createUser(deps: DomainDeps, auth: Auth, raw: z.input<typeof createUserInput>): Promise<CreatedUser> {
  const input = parse(createUserInput, raw);
  if (await deps.store.findUserByEmail(input.email)) throw new CairnError('conflict', `A user with the email ${input.email} already exists.`);
  const plan = input.invite ? await planFromInvite(deps, input.invite) : await planOrganization(deps, input.org);
  const name = input.name ?? input.email.split('@')[0]!;
  const signUp = await auth.api.signUpEmail({ body: { email: input.email, password: input.password, name } });
  const ctx = await auth.$context;
  // signUpEmail signs the new user in; a session nobody holds is only a liability.
  await ctx.internalAdapter.deleteSession(signUp.token!);
  const user = { id: signUp.user.id, email: signUp.user.email, name: signUp.user.name };
  try {
    if (plan.inviteHash && !(await deps.store.consumeInvite(plan.inviteHash, user.id, deps.now()))) {
      throw new CairnError('conflict', 'This invitation was used by someone else a moment ago. Ask your admin for a new invite link.');
    }
    const organization = plan.join
      ? await joinOrganization(auth, plan.join, user.id, plan.role ?? 'member')
      : await createOrganization(deps, auth, plan.create, user.id);
    await ensurePersonalDatapack(deps, user.id);
    return { user, organization };
  } catch (error) {
    await ctx.internalAdapter.deleteUser(user.id); // nothing half-made stays behind
    throw error;
  }
}

/** Creates a team in an organization. */
export async function createTeam(auth: Auth, organizationId: string, name: string): Promise<{ id: string; name: string }> {
  const team = await auth.api.createTeam({ body: { organizationId, name } });
  return { id: team.id, name: team.name };
}

/** Adds an organization member to one of its teams. */
export async function addUserToTeam(deps: DomainDeps, auth: Auth, teamId: string, userId: string): Promise<void> {
  const memberships = await deps.store.getMemberships(userId);
  const ctx = await auth.$context;
  const team = await ctx.adapter.findOne<{ organizationId: string }>({ model: 'team', where: [{ field: 'id', value: teamId }] });
  if (!team) throw new CairnError('not_found', `No team ${teamId}.`);
  if (!memberships.organizations.some((o) => o.id === team.organizationId)) {
    throw new CairnError('invalid_input', 'The user must be a member of the team\'s organization first.');
  }
  await addTeamMember(auth, { teamId, userId });
}

type OrganizationPlan =
  | { join: { id: string; name: string }; role?: 'member' | 'admin'; inviteHash?: string; create?: undefined }
  | { join?: undefined; role?: undefined; inviteHash?: undefined; create: string };

async function planFromInvite(deps: DomainDeps, token: string): Promise<OrganizationPlan> {
  const inviteHash = hashInviteToken(token);
  const invite = await deps.store.findInvite(inviteHash, deps.now());
  const org = invite && (await deps.store.listOrganizations()).find((o) => o.id === invite.organizationId);
  if (!invite || !org) throw new CairnError('invalid_input', 'This invite link is not valid: it was used already, has expired (links last 7 days) or was cut short. Ask your admin for a new one.');
  return { join: org, role: invite.role, inviteHash };
}

async function planOrganization(deps: DomainDeps, requested: string | undefined): Promise<OrganizationPlan> {
  const orgs = await deps.store.listOrganizations();
  if (requested) {
    const match = orgs.find((o) => o.name.toLowerCase() === requested.toLowerCase());
    return match ? { join: match } : { create: requested };
  }
  if (orgs.length === 0) return { create: 'My organization' };
  if (orgs.length === 1) return { join: orgs[0]! };
  throw new CairnError('invalid_input', `Several organizations exist; pass --org with one of: ${orgs.map((o) => o.name).join(', ')}.`);
}

async function joinOrganization(auth: Auth, org: { id: string; name: string }, userId: string, role: 'member' | 'admin'): Promise<CreatedUser['organization']> {
  await auth.api.addMember({ body: { organizationId: org.id, userId, role } });
  return { id: org.id, name: org.name, role };
}

async function createOrganization(deps: DomainDeps, auth: Auth, name: string, userId: string): Promise<CreatedUser['organization']> {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'org';
  const slug = `${base}-${deps.newId('dpk').slice(-6)}`;
  const org = await auth.api.createOrganization({ body: { name, slug, userId } });
  if (!org) throw new Error('better-auth returned no organization');
  const now = deps.now();
  await deps.store.insertDatapack({
    id: deps.newId('dpk'), scope: 'organization', ownerId: org.id, organizationId: org.id, name,
    description: `Policies and shared knowledge of ${name}`, createdBy: userId, createdAt: now, updatedAt: now,
  });
  return { id: org.id, name: org.name, role: 'owner' };
}

import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Auth, removeMember as removeOrgMember, setMemberRole } from '../auth/better-auth.js';
import { CairnError } from '../errors/cairn-error.js';
import type { OrgMember, TeamWithMembers } from '../store/types.js';
import type { Access } from './access.js';
import { audit } from './audit.js';
import type { DomainDeps } from './deps.js';
import { parse } from './parse-input.js';
import { hasRole } from './roles.js';
import { addUserToTeam, createTeam, removeUserFromTeam, renameTeamTo, teamOrganization } from './teams.js';

/** Invite links are good for one sign-up within seven days. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Invitations are stored by hash only, like keys. */
export function hashInviteToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Creates a one-time invite token for an organization (admins only). */
export async function createInvite(
  deps: DomainDeps,
  access: Access,
  organizationId: string,
  role: unknown,
): Promise<{ token: string; expiresAt: string }> {
  assertAdmin(access, organizationId);
  const parsedRole = parse(z.enum(['member', 'admin']).default('member'), role);
  const token = randomBytes(24).toString('base64url');
  const createdAt = deps.now();
  const expiresAt = new Date(Date.parse(createdAt) + INVITE_TTL_MS).toISOString();
  await deps.store.insertInvite(hashInviteToken(token), {
    organizationId,
    role: parsedRole,
    createdBy: access.caller.userId,
    createdAt,
    expiresAt,
  });
  audit(deps, {
    kind: 'invite.created',
    by: access.caller,
    organizationId,
    target: { type: 'invite', id: hashInviteToken(token), name: parsedRole },
  });
  return { token, expiresAt };
}

/** The organization's members with their roles (any member may look). */
export async function listMembers(deps: DomainDeps, access: Access, organizationId: string): Promise<OrgMember[]> {
  assertMember(access, organizationId);
  return deps.store.listOrgMembers(organizationId);
}

/**
 * Changes a member's role. Admins manage members and admins; only owners make or unmake owners;
 * the last owner cannot step down, so an organization is never left without one.
 */
export async function changeMemberRole(
  deps: DomainDeps,
  auth: Auth,
  access: Access,
  organizationId: string,
  userId: string,
  rawRole: unknown,
): Promise<OrgMember> {
  assertAdmin(access, organizationId);
  const role = parse(z.enum(['member', 'admin', 'owner']), rawRole);
  const { target, isOwner, callerIsOwner, lastOwner } = await memberChange(deps, access, organizationId, userId);
  if ((role === 'owner' || isOwner) && !callerIsOwner) {
    throw new CairnError('forbidden', "Only an owner can make someone an owner or change an owner's role.");
  }
  if (lastOwner && role !== 'owner') throw new CairnError('conflict', LAST_OWNER);
  await setMemberRole(auth, { organizationId, userId, role });
  audit(deps, {
    kind: 'member.role_changed',
    by: access.caller,
    organizationId,
    target: { type: 'user', id: userId, name: `${target.email}: ${target.role} → ${role}` },
  });
  return { ...target, role };
}

/**
 * Removes someone from the organization and its teams (admins; only owners remove owners; the last
 * owner stays). Their account, personal datapacks and keys remain; what the organization and its
 * teams hold is out of their reach from their next request on.
 */
export async function removeMember(
  deps: DomainDeps,
  auth: Auth,
  access: Access,
  organizationId: string,
  userId: string,
): Promise<void> {
  assertAdmin(access, organizationId);
  const { target, isOwner, callerIsOwner, lastOwner } = await memberChange(deps, access, organizationId, userId);
  if (isOwner && !callerIsOwner) throw new CairnError('forbidden', 'Only an owner can remove an owner.');
  if (lastOwner) throw new CairnError('conflict', LAST_OWNER);
  await removeOrgMember(auth, { organizationId, userId });
  audit(deps, {
    kind: 'member.removed',
    by: access.caller,
    organizationId,
    target: { type: 'user', id: userId, name: target.email },
  });
}

/** Invitations still open (admins only): who made each, its role and expiry; never the link. */
export async function listInvites(
  deps: DomainDeps,
  access: Access,
  organizationId: string,
): Promise<{ id: string; role: string; createdBy: string; createdAt: string; expiresAt: string }[]> {
  assertAdmin(access, organizationId);
  return (await deps.store.listInvites(organizationId, deps.now())).map(
    ({ id, role, createdBy, createdAt, expiresAt }) => ({ id, role, createdBy, createdAt, expiresAt }),
  );
}

/** Cancels an open invitation (admins only): its link stops working at once. */
export async function cancelInvite(
  deps: DomainDeps,
  access: Access,
  organizationId: string,
  inviteId: string,
): Promise<void> {
  assertAdmin(access, organizationId);
  if (!(await deps.store.deleteInvite(organizationId, inviteId)))
    throw new CairnError('not_found', 'No open invitation with that id (it may have been used or cancelled).');
  audit(deps, {
    kind: 'invite.cancelled',
    by: access.caller,
    organizationId,
    target: { type: 'invite', id: inviteId },
  });
}

/** Renames a team (admins of its organization). */
export async function renameTeamIn(
  deps: DomainDeps,
  auth: Auth,
  access: Access,
  teamId: string,
  rawName: unknown,
): Promise<{ id: string; name: string }> {
  const organizationId = await teamOrganization(auth, teamId);
  assertAdmin(access, organizationId);
  const team = await renameTeamTo(deps, auth, teamId, rawName);
  audit(deps, {
    kind: 'team.renamed',
    by: access.caller,
    organizationId,
    target: { type: 'team', id: teamId, name: team.name },
  });
  return team;
}

/** Takes a member out of a team (admins of its organization). */
export async function removeTeamMemberIn(
  deps: DomainDeps,
  auth: Auth,
  access: Access,
  teamId: string,
  userId: string,
): Promise<void> {
  await changeTeamMember(deps, auth, access, teamId, userId, 'team.member_removed', removeUserFromTeam);
}

/** The organization's teams with their members (any member may look). */
export async function listTeams(deps: DomainDeps, access: Access, organizationId: string): Promise<TeamWithMembers[]> {
  assertMember(access, organizationId);
  return deps.store.listTeams(organizationId);
}

/** Creates a team (admins only). */
export async function createTeamIn(
  deps: DomainDeps,
  auth: Auth,
  access: Access,
  organizationId: string,
  rawName: unknown,
): Promise<{ id: string; name: string }> {
  assertAdmin(access, organizationId);
  const team = await createTeam(deps, auth, organizationId, rawName);
  audit(deps, {
    kind: 'team.created',
    by: access.caller,
    organizationId,
    target: { type: 'team', id: team.id, name: team.name },
  });
  return team;
}

/** Adds an organization member to one of its teams (admins only). */
export async function addMemberToTeam(
  deps: DomainDeps,
  auth: Auth,
  access: Access,
  teamId: string,
  userId: string,
): Promise<void> {
  await changeTeamMember(deps, auth, access, teamId, userId, 'team.member_added', addUserToTeam);
}

/** Adds or removes a team's member, by an admin of its organization, and records it. */
async function changeTeamMember(
  deps: DomainDeps,
  auth: Auth,
  access: Access,
  teamId: string,
  userId: string,
  kind: 'team.member_added' | 'team.member_removed',
  change: (deps: DomainDeps, auth: Auth, teamId: string, userId: string) => Promise<unknown>,
): Promise<void> {
  const organizationId = await teamOrganization(auth, teamId);
  assertAdmin(access, organizationId);
  await change(deps, auth, teamId, userId);
  audit(deps, {
    kind,
    by: access.caller,
    organizationId,
    target: { type: 'team', id: teamId, name: `user ${userId}` },
  });
}

const LAST_OWNER = 'This is the only owner: make someone else an owner first.';

/** The member a role change or removal is about, with what the owner rules need to know. */
async function memberChange(deps: DomainDeps, access: Access, organizationId: string, userId: string) {
  const members = await deps.store.listOrgMembers(organizationId);
  const target = members.find((m) => m.userId === userId);
  if (!target) throw new CairnError('not_found', 'That person is not a member of this organization.');
  const isOwner = hasRole(target.role, 'owner');
  const callerIsOwner = members.some((m) => m.userId === access.caller.userId && hasRole(m.role, 'owner'));
  return {
    target,
    isOwner,
    callerIsOwner,
    lastOwner: isOwner && members.filter((m) => hasRole(m.role, 'owner')).length === 1,
  };
}

function assertMember(access: Access, organizationId: string): void {
  if (!access.memberships.organizations.some((o) => o.id === organizationId))
    throw new CairnError('not_found', 'No such organization among yours.');
}

function assertAdmin(access: Access, organizationId: string): void {
  assertMember(access, organizationId);
  // Every admin verb changes something, so a read-only key stops here whatever its owner's role.
  access.assertMayWrite();
  if (!access.isOrgAdmin(organizationId))
    throw new CairnError('forbidden', 'Only organization admins and owners can do this; ask one of them.');
}

import { z } from 'zod';
import { type Auth, addTeamMember, removeTeamMember, renameTeam } from '../auth/better-auth.js';
import { CairnError } from '../errors/cairn-error.js';
import type { DomainDeps } from './deps.js';
import { parse, storedName } from './parse-input.js';

/**
 * The team rules, whoever asks: names are required and unique in the organization (ignoring case),
 * and only the organization's members join its teams. Callers check who may ask (an admin in the
 * portal, the operator on the CLI).
 */
// Names are shown in terminals and lists: control and bidirectional characters never get stored.
const teamName = z.string().overwrite(storedName).min(1, 'give the team a name').max(80);

export async function createTeam(
  deps: DomainDeps,
  auth: Auth,
  organizationId: string,
  rawName: unknown,
): Promise<{ id: string; name: string }> {
  const name = parse(teamName, rawName);
  await assertFreeName(deps, organizationId, name);
  const team = await auth.api.createTeam({ body: { organizationId, name } });
  return { id: team.id, name: team.name };
}

/** Renames a team; the name rules are those of a new team. */
export async function renameTeamTo(
  deps: DomainDeps,
  auth: Auth,
  teamId: string,
  rawName: unknown,
): Promise<{ id: string; name: string }> {
  const name = parse(teamName, rawName);
  const organizationId = await teamOrganization(auth, teamId);
  await assertFreeName(deps, organizationId, name, teamId);
  await renameTeam(auth, teamId, name);
  return { id: teamId, name };
}

/** Takes a member out of a team; not_found when they are not in it. */
export async function removeUserFromTeam(deps: DomainDeps, auth: Auth, teamId: string, userId: string): Promise<void> {
  const organizationId = await teamOrganization(auth, teamId);
  const team = (await deps.store.listTeams(organizationId)).find((t) => t.id === teamId);
  if (!team?.members.some((m) => m.userId === userId))
    throw new CairnError('not_found', 'That person is not in this team.');
  await removeTeamMember(auth, { teamId, userId });
}

async function assertFreeName(deps: DomainDeps, organizationId: string, name: string, except?: string): Promise<void> {
  if (
    (await deps.store.listTeams(organizationId)).some(
      (t) => t.id !== except && t.name.toLowerCase() === name.toLowerCase(),
    )
  ) {
    throw new CairnError('conflict', `A team named "${name}" already exists.`);
  }
}

/** Adds an organization member to one of its teams. */
export async function addUserToTeam(deps: DomainDeps, auth: Auth, teamId: string, userId: string): Promise<void> {
  const organizationId = await teamOrganization(auth, teamId);
  if (!(await deps.store.listOrgMembers(organizationId)).some((m) => m.userId === userId)) {
    throw new CairnError('invalid_input', 'Only members of the organization can join its teams; invite them first.');
  }
  await addTeamMember(auth, { teamId, userId });
}

/** The organization a team belongs to; not_found for an unknown team. */
export async function teamOrganization(auth: Auth, teamId: string): Promise<string> {
  const ctx = await auth.$context;
  const team = await ctx.adapter.findOne<{ organizationId: string }>({
    model: 'team',
    where: [{ field: 'id', value: teamId }],
  });
  if (!team) throw new CairnError('not_found', `No team ${teamId}.`);
  return team.organizationId;
}

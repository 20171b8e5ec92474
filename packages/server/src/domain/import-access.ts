import { CairnError } from '../errors/cairn-error.js';
import type { Datapack } from '../store/types.js';
import type { Access } from './access.js';
import type { DatapackLine } from './export-format.js';

/**
 * Where a datapack of the file may land for a signed-in caller (the JSON API's import), or the
 * error that stops the whole import before anything is written. Only the caller's own memberships
 * are searched: their account, their teams, organizations they belong to. So a file naming
 * someone else's account, organization or datapack id is refused the same way whether or not it
 * exists here (not_found), and nothing about other tenants can be learned by importing.
 */
export function callerOwner(
  access: Access,
  d: DatapackLine,
): { ownerId: string; organizationId: string | null; scope: Datapack['scope'] } {
  const owner = d.owner;
  const lower = (s: string) => s.toLowerCase();
  if ('user' in owner) {
    if (access.user && lower(access.user.email) === lower(owner.user))
      return { ownerId: access.caller.userId, organizationId: null, scope: 'personal' };
    throw notYours(d, `it is the personal datapack of ${owner.user}; you can import only your own`);
  }
  const org = access.memberships.organizations.find((o) => lower(o.name) === lower(owner.organization));
  if (!org) throw notYours(d, `you are not a member of an organization named "${owner.organization}" here`);
  if (!('team' in owner)) {
    if (!access.isOrgAdmin(org.id))
      throw new CairnError(
        'forbidden',
        `Datapack "${d.name}" is an organization datapack of "${org.name}": only its admins can import it. Nothing was imported; ask an admin, or export only your own datapacks.`,
      );
    return { ownerId: org.id, organizationId: org.id, scope: 'organization' };
  }
  const team = access.memberships.teams.find((t) => t.organizationId === org.id && lower(t.name) === lower(owner.team));
  if (!team) throw notYours(d, `you are not in a team named "${owner.team}" of "${org.name}" here`);
  return { ownerId: team.id, organizationId: org.id, scope: 'team' };
}

/** A datapack id already taken here must be one the caller may write, else it is as if it did not exist. */
export function assertWritableId(access: Access, d: DatapackLine, same: Datapack): void {
  if (!access.canRead(same)) throw notYours(d, `its id ${d.id} is not one of your datapacks here`);
  if (!access.canWrite(same))
    throw new CairnError(
      'forbidden',
      `You cannot write to datapack "${same.name}" here. Nothing was imported; ask an admin, or leave it out of the export.`,
    );
}

function notYours(d: DatapackLine, why: string): CairnError {
  return new CairnError(
    'not_found',
    `Datapack "${d.name}" of the file is not one you can import: ${why}. Nothing was imported; export only datapacks you can write here, then try again.`,
  );
}

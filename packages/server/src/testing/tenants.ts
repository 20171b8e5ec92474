import { randomBytes } from 'node:crypto';
import { createUser } from '../domain/accounts.js';
import { createApiKey } from '../domain/api-keys.js';
import { addUserToTeam, createTeam } from '../domain/teams.js';
import type { Cairn } from '../runtime/open-cairn.js';
import { startTestCairn, type TestCairn, type TestCairnOptions } from './test-cairn.js';

/** A user of a test tenant, with a working API key. */
export interface TestUser {
  id: string;
  email: string;
  key: string;
}

/** An organization with an owner, a plain member, a team holding the member, and an outsider in another organization. */
export interface TestTenant {
  orgId: string;
  orgName: string;
  teamId: string;
  owner: TestUser;
  member: TestUser;
  outsider: TestUser;
}

/** Makes a fresh tenant with unique names, so tests never share state. */
export async function createTenant(cairn: Cairn): Promise<TestTenant> {
  const tag = randomBytes(4).toString('hex');
  const orgName = `Org ${tag}`;
  const user = async (who: string, org: string, join = false) => {
    const email = `${who}-${tag}@example.test`;
    const { user: created } = await createUser(cairn.domain, cairn.auth, {
      email,
      password: 'correct horse battery',
      org,
      join,
      name: who,
    });
    const { key } = await createApiKey(cairn.domain, created.id, `${who} key`);
    return { id: created.id, email, key };
  };
  const owner = await user('owner', orgName);
  const member = await user('member', orgName, true);
  const outsider = await user('outsider', `Other ${tag}`);
  const orgId = (await cairn.store.getMemberships(owner.id)).organizations[0]!.id;
  const team = await createTeam(cairn.domain, cairn.auth, orgId, `Team ${tag}`);
  await addUserToTeam(cairn.domain, cairn.auth, team.id, member.id);
  return { orgId, orgName, teamId: team.id, owner, member, outsider };
}

/** A started Cairn with a fresh tenant, what most end-to-end suites set up first; the caller closes the server. */
export async function startTenantCairn(options?: TestCairnOptions): Promise<{ server: TestCairn; tenant: TestTenant }> {
  const server = await startTestCairn(options);
  try {
    return { server, tenant: await createTenant(server.cairn) };
  } catch (err) {
    await server.close();
    throw err;
  }
}

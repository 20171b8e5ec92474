import { sql } from 'kysely';
import { iso } from './row-mappers.js';
import type { StoreContext } from './store-context.js';
import type { Invite, Memberships, OAuthUse, OrgMember, TeamWithMembers, UserRecord } from './types.js';

// Users, organizations, teams and invitations (better-auth's tables and ours), the access epoch and instance settings.

export async function getOrInitSetting(s: StoreContext, name: string, candidate: string): Promise<string> {
  // Outside the migrations on purpose: settings (the auth secret) are needed before better-auth migrates.
  await sql`CREATE TABLE IF NOT EXISTS cairn_setting (name TEXT PRIMARY KEY, value TEXT NOT NULL)`.execute(s.db);
  await sql`INSERT INTO cairn_setting (name, value) VALUES (${name}, ${candidate}) ON CONFLICT (name) DO NOTHING`.execute(
    s.db,
  );
  const { rows } = await sql<{ value: string }>`SELECT value FROM cairn_setting WHERE name = ${name}`.execute(s.db);
  return rows[0]!.value;
}

export async function findUserByEmail(s: StoreContext, email: string): Promise<UserRecord | undefined> {
  return s.db
    .selectFrom('user')
    .select(['id', 'email', 'name'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

export async function getUser(s: StoreContext, id: string): Promise<UserRecord | undefined> {
  return (await s.hot.userById(id))[0];
}

export async function countUsers(s: StoreContext): Promise<number> {
  const row = await s.db
    .selectFrom('user')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function accessEpoch(s: StoreContext): Promise<number> {
  const [row] = await s.hot.accessEpoch();
  if (row) return Number(row.epoch);
  // Deleted by hand: the triggers then count nothing, so it is put back at once. The clock's
  // milliseconds are above any count the triggers reached, so no instance's cache takes it for the
  // epoch it holds; whichever instance is first puts it back, the others keep that row.
  await s.db
    .insertInto('access_epoch')
    .values({ id: 1, epoch: Date.now() })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const [restored] = await s.hot.accessEpoch();
  if (!restored)
    throw new Error(
      'the access_epoch row could not be put back: restore it with INSERT INTO access_epoch (id, epoch) VALUES (1, <the current time in milliseconds>)',
    );
  return Number(restored.epoch);
}

export async function getMemberships(s: StoreContext, userId: string): Promise<Memberships> {
  const [organizations, teams] = await Promise.all([s.hot.organizationsOf(userId), s.hot.teamsOf(userId)]);
  return { organizations, teams };
}

export async function listOrganizations(s: StoreContext): Promise<{ id: string; name: string }[]> {
  return s.db.selectFrom('organization').select(['id', 'name']).orderBy('createdAt').execute();
}

export async function listOrgMembers(s: StoreContext, organizationId: string): Promise<OrgMember[]> {
  return s.db
    .selectFrom('member')
    .innerJoin('user', 'user.id', 'member.userId')
    .select(['member.userId as userId', 'user.email as email', 'user.name as name', 'member.role as role'])
    .where('member.organizationId', '=', organizationId)
    .orderBy('user.email')
    .execute();
}

export async function listTeams(s: StoreContext, organizationId: string): Promise<TeamWithMembers[]> {
  const [teams, members] = await Promise.all([
    s.db
      .selectFrom('team')
      .select(['id', 'name'])
      .where('organizationId', '=', organizationId)
      .orderBy('name')
      .execute(),
    s.db
      .selectFrom('teamMember')
      .innerJoin('team', 'team.id', 'teamMember.teamId')
      .innerJoin('user', 'user.id', 'teamMember.userId')
      .select(['teamMember.teamId as teamId', 'user.id as userId', 'user.email as email', 'user.name as name'])
      .where('team.organizationId', '=', organizationId)
      .orderBy('user.email')
      .execute(),
  ]);
  return teams.map((t) => ({
    ...t,
    members: members.filter((m) => m.teamId === t.id).map(({ teamId: _, ...m }) => m),
  }));
}

export async function insertInvite(s: StoreContext, tokenHash: string, i: Invite): Promise<void> {
  await s.db
    .insertInto('invite')
    .values({
      token_hash: tokenHash,
      organization_id: i.organizationId,
      role: i.role,
      created_by: i.createdBy,
      created_at: i.createdAt,
      expires_at: i.expiresAt,
      used_at: null,
      used_by: null,
    })
    .execute();
}

export async function findInvite(s: StoreContext, tokenHash: string, now: string): Promise<Invite | undefined> {
  const row = await s.db
    .selectFrom('invite')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return (
    row && {
      organizationId: row.organization_id,
      role: row.role as Invite['role'],
      createdBy: row.created_by,
      createdAt: iso(row.created_at),
      expiresAt: iso(row.expires_at),
    }
  );
}

export async function consumeInvite(s: StoreContext, tokenHash: string, userId: string, now: string): Promise<boolean> {
  const result = await s.db
    .updateTable('invite')
    .set({ used_at: now, used_by: userId })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listInvites(
  s: StoreContext,
  organizationId: string,
  now: string,
): Promise<(Invite & { id: string })[]> {
  const rows = await s.db
    .selectFrom('invite')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.token_hash,
    organizationId: r.organization_id,
    role: r.role as Invite['role'],
    createdBy: r.created_by,
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
  }));
}

export async function deleteInvite(s: StoreContext, organizationId: string, tokenHash: string): Promise<boolean> {
  const result = await s.db
    .deleteFrom('invite')
    .where('organization_id', '=', organizationId)
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function recordOAuthUse(s: StoreContext, uses: OAuthUse[]): Promise<void> {
  for (const u of uses) {
    await s.db
      .insertInto('oauth_client_use')
      .values({ user_id: u.userId, client_id: u.clientId, last_used_at: u.at, last_used_client: u.client })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'client_id'])
          .doUpdateSet({ last_used_at: u.at, last_used_client: u.client })
          .where('oauth_client_use.last_used_at', '<', u.at),
      )
      .execute();
  }
}

export async function listOAuthUse(s: StoreContext, userId: string): Promise<OAuthUse[]> {
  const rows = await s.db.selectFrom('oauth_client_use').selectAll().where('user_id', '=', userId).execute();
  return rows.map((r) => ({
    userId: r.user_id,
    clientId: r.client_id,
    at: iso(r.last_used_at),
    client: r.last_used_client,
  }));
}

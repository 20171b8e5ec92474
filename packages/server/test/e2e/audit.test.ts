import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AuditEvent } from '@cairn/contract';
import { sql } from 'kysely';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { browserSession } from '../../src/testing/browser-session.js';
import { cairnCommand } from '../../src/testing/cairn-process.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const PASSWORD = 'correct horse battery';
const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

let server: TestCairn;
let tenant: TestTenant;

before(async () => ({ server, tenant } = await startTenantCairn()));
after(() => server?.close());

const browser = () => browserSession(() => server.baseUrl, 'AuditTestBrowser/1.0');

async function signedIn(email: string) {
  const b = browser();
  const res = await b('/api/auth/sign-in/email', { method: 'POST', body: { email, password: PASSWORD } });
  assert.equal(res.status, 200);
  return b;
}

async function withKey(key: string, path: string) {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as any };
}

/** Writes what is queued, as the background flush would. */
const flush = () => server.cairn.domain.audit.flush();

describe('the audit trail', () => {
  test('a failed and a successful sign-in are recorded for the account, never the attempted password', async () => {
    const wrong = 'Tr0ub4dor&3-not-the-password';
    const b = browser();
    assert.equal(
      (await b('/api/auth/sign-in/email', { method: 'POST', body: { email: tenant.member.email, password: wrong } }))
        .status,
      401,
    );
    assert.equal(
      (await b('/api/auth/sign-in/email', { method: 'POST', body: { email: tenant.member.email, password: PASSWORD } }))
        .status,
      200,
    );
    await flush();
    const mine = await b('/api/v1/audit?kind=auth');
    assert.equal(mine.status, 200);
    const [ok, failed] = mine.body.events as AuditEvent[];
    assert.deepEqual(
      [ok!.kind, ok!.outcome, failed!.kind, failed!.outcome],
      ['auth.signed_in', 'success', 'auth.sign_in_failed', 'failure'],
    );
    assert.deepEqual(
      [failed!.actorUserId, failed!.actorEmail, failed!.client, failed!.credential?.type],
      [tenant.member.id, tenant.member.email, 'AuditTestBrowser/1.0', 'session'],
    );
    const rows = await server.cairn.store.db.selectFrom('audit_events').selectAll().execute();
    assert.ok(!JSON.stringify(rows).includes(wrong), 'the attempted password is nowhere in the table');
  });

  test('team and organization entry writes name the key and the MCP client; personal writes are not audited', async () => {
    const owner = await signedIn(tenant.owner.email);
    const team = await owner('/api/v1/datapacks', {
      method: 'POST',
      body: { name: 'Team standards', scope: 'team', teamId: tenant.teamId },
    });
    assert.equal(team.status, 403, 'the owner is not in the team');
    const member = await signedIn(tenant.member.email);
    const pack = await member('/api/v1/datapacks', {
      method: 'POST',
      body: { name: 'Team standards', scope: 'team', teamId: tenant.teamId },
    });
    assert.equal(pack.status, 201);
    const client = await connectMcpClient(server.mcpUrl, tenant.member.key);
    try {
      const saved = await callTool(client, 'save_entry', {
        datapack: pack.body.datapack.id,
        kind: 'standard',
        title: 'Review every pull request',
        content: 'Two approvals before merging.',
      });
      await callTool(client, 'update_entry', {
        id: saved.entry.id,
        expectedVersion: 1,
        content: 'Two approvals before merging to main.',
      });
      await callTool(client, 'delete_entry', { id: saved.entry.id });
      await callTool(client, 'restore_entry', { id: saved.entry.id });
      await callTool(client, 'save_entry', { title: 'My own note', content: 'Personal things stay out of the trail.' });
      await flush();
      const events = (await owner(`/api/v1/audit?org=${tenant.orgId}&kind=entry`)).body.events as AuditEvent[];
      assert.deepEqual(
        events.map((e) => [e.kind, e.target?.id]),
        [
          ['entry.restored', saved.entry.id],
          ['entry.deleted', saved.entry.id],
          ['entry.updated', saved.entry.id],
          ['entry.created', saved.entry.id],
        ],
      );
      const created = events[3]!;
      assert.deepEqual(
        [created.actorUserId, created.actorEmail, created.organizationId],
        [tenant.member.id, tenant.member.email, tenant.orgId],
      );
      const memberKey = (await server.cairn.store.listApiKeys(tenant.member.id))[0]!;
      assert.deepEqual(created.credential, { type: 'api_key', id: memberKey.id, name: 'member key' });
      assert.equal(created.client, 'cairn-test 1.0.0');
      assert.equal(created.target?.name, 'Team standards › Review every pull request');
      assert.ok(!JSON.stringify(events).includes('Two approvals'), 'entry bodies are never recorded');
      assert.equal((await member(`/api/v1/datapacks/${pack.body.datapack.id}`, { method: 'DELETE' })).status, 200);
      assert.equal(
        (await member(`/api/v1/datapacks/${pack.body.datapack.id}/restore`, { method: 'POST' })).status,
        200,
      );
      await flush();
      const packs = (await owner(`/api/v1/audit?org=${tenant.orgId}&kind=datapack`)).body.events as AuditEvent[];
      assert.deepEqual(
        packs.map((e) => [e.kind, e.target?.type, e.target?.name, e.credential?.type, e.client]),
        [
          ['datapack.restored', 'datapack.team', 'Team standards', 'session', 'cairn-portal'],
          ['datapack.deleted', 'datapack.team', 'Team standards', 'session', 'cairn-portal'],
          ['datapack.created', 'datapack.team', 'Team standards', 'session', 'cairn-portal'],
        ],
      );
    } finally {
      await client.close();
    }
  });

  test('admins filter the organization trail by person, kind and date, and page through it', async () => {
    const owner = await signedIn(tenant.owner.email);
    const byMember = (await owner(`/api/v1/audit?org=${tenant.orgId}&actor=${encodeURIComponent(tenant.member.email)}`))
      .body.events as AuditEvent[];
    assert.ok(byMember.length >= 3);
    assert.ok(byMember.every((e) => e.actorUserId === tenant.member.id && e.organizationId === tenant.orgId));
    const future = (await owner(`/api/v1/audit?org=${tenant.orgId}&since=2999-01-01`)).body;
    assert.deepEqual(future, { events: [], nextCursor: null });
    const first = (await owner(`/api/v1/audit?org=${tenant.orgId}&limit=1`)).body;
    const second = (await owner(`/api/v1/audit?org=${tenant.orgId}&limit=1&cursor=${first.nextCursor}`)).body;
    assert.equal(first.events.length, 1);
    assert.equal(second.events.length, 1);
    assert.notEqual(first.events[0].id, second.events[0].id);
    assert.ok(first.events[0].at >= second.events[0].at);
  });

  test('a member cannot read the organization trail, an outsider cannot see it exists, and nobody reads another user', async () => {
    const member = await signedIn(tenant.member.email);
    const refused = await member(`/api/v1/audit?org=${tenant.orgId}`);
    assert.equal(refused.status, 403);
    assert.match(refused.body.error.message, /admins and owners/);
    const outsider = await signedIn(tenant.outsider.email);
    assert.equal((await outsider(`/api/v1/audit?org=${tenant.orgId}`)).status, 404);
    const spying = await member(`/api/v1/audit?actor=${encodeURIComponent(tenant.owner.email)}`);
    assert.equal(spying.status, 403);
    assert.match(spying.body.error.message, /only your own/);
    assert.equal((await member(`/api/v1/audit?actor=${tenant.owner.id}`)).status, 403);
    const own = (await member('/api/v1/audit')).body.events as AuditEvent[];
    assert.ok(own.length > 0 && own.every((e) => e.actorUserId === tenant.member.id));
  });

  test("an API key reads its own user's trail but never the organization's, even an owner's key", async () => {
    const own = await withKey(tenant.owner.key, '/audit');
    assert.equal(own.status, 200);
    assert.ok((own.body.events as AuditEvent[]).every((e) => e.actorUserId === tenant.owner.id));
    const org = await withKey(tenant.owner.key, `/audit?org=${tenant.orgId}`);
    assert.equal(org.status, 403);
    assert.match(org.body.error.message, /not with an API key/);
  });

  test('keys made and revoked in the portal are recorded; the revoked key then gets 401', async () => {
    const member = await signedIn(tenant.member.email);
    const made = await member('/api/v1/keys', { method: 'POST', body: { name: 'ci', scope: 'read' } });
    assert.equal(made.status, 201);
    assert.equal((await withKey(made.body.key, '/audit')).status, 200);
    assert.equal((await member(`/api/v1/keys/${made.body.record.id}`, { method: 'DELETE' })).status, 200);
    const revoked = await withKey(made.body.key, '/audit');
    assert.equal(revoked.status, 401);
    await flush();
    const events = ((await member('/api/v1/audit?kind=key')).body.events as AuditEvent[]).filter(
      (e) => e.target?.id === made.body.record.id,
    );
    assert.deepEqual(
      events.map((e) => [e.kind, e.credential?.type, e.target?.name]),
      [
        ['key.revoked', 'session', 'ci'],
        ['key.created', 'session', 'ci (read)'],
      ],
    );
    const sessions = (
      await sql<{
        id: string;
        token: string;
      }>`SELECT id, token FROM session WHERE "userId" = ${tenant.member.id}`.execute(server.cairn.store.db)
    ).rows;
    assert.ok(
      sessions.some((s) => s.id === events[0]!.credential?.id),
      'the session is named by its id',
    );
    assert.ok(!sessions.some((s) => JSON.stringify(events).includes(s.token)), 'never by its token');
    assert.ok(
      !JSON.stringify(await server.cairn.store.db.selectFrom('audit_events').selectAll().execute()).includes(
        made.body.key,
      ),
      'the key itself is never recorded',
    );
  });

  test('an expired key is recorded the first time it is refused, once', async () => {
    const member = await signedIn(tenant.member.email);
    const made = await member('/api/v1/keys', { method: 'POST', body: { name: 'short', expiresInDays: 1 } });
    const realNow = server.cairn.domain.now;
    server.cairn.domain.now = () => new Date(Date.now() + 2 * 24 * 60 * 60 * 1000).toISOString();
    try {
      assert.equal((await withKey(made.body.key, '/audit')).status, 401);
      assert.equal((await withKey(made.body.key, '/audit')).status, 401);
      await flush();
      assert.equal((await withKey(made.body.key, '/audit')).status, 401);
      await flush();
    } finally {
      server.cairn.domain.now = realNow;
    }
    const expired = await server.cairn.store.listAuditEvents({
      kind: 'key.expired',
      targetId: made.body.record.id,
      limit: 10,
    });
    assert.deepEqual(
      expired.map((e) => [e.actorUserId, e.outcome]),
      [[tenant.member.id, 'refused']],
    );
  });

  test('malformed filters are refused with a message naming the parameter', async () => {
    const owner = await signedIn(tenant.owner.email);
    const cases: [string, RegExp][] = [
      ['since=yesterday', /since: must be a date such as 2026-01-31/],
      ['until=2026-13-45', /until: must be a date/],
      [`kind=${'a'.repeat(5000)}`, /kind: must be at most 64 characters/],
      ['kind=DROP%20TABLE', /kind: must be an event kind such as entry.updated/],
      ['cursor=bm90LWEtY3Vyc29y', /cursor: not a cursor this trail gave out/],
      ['limit=abc', /limit: must be a whole number/],
      ['limit=1000', /limit: must be at most 200/],
      ['since=2026-02-01&until=2026-01-01', /since must be before until/],
    ];
    for (const [query, message] of cases) {
      const res = await owner(`/api/v1/audit?${query}`);
      assert.equal(res.status, 400, query.slice(0, 60));
      assert.match(res.body.error.message, message);
    }
  });

  test('a dead audit write never fails the request: it is logged without the event and written on a later flush', async () => {
    const owner = await signedIn(tenant.owner.email);
    const orgPack = (
      (await owner('/api/v1/datapacks')).body.datapacks as { id: string; name: string; scope: string }[]
    ).find((d) => d.scope === 'organization')!;
    const { db } = server.cairn.store;
    await flush();
    await sql`ALTER TABLE audit_events RENAME TO audit_events_away`.execute(db);
    let entryId: string;
    try {
      const saved = await owner('/api/v1/entries', {
        method: 'POST',
        body: {
          datapack: orgPack.id,
          kind: 'policy',
          title: 'Rotate deploy keys yearly',
          content: 'Every deploy key is rotated once a year.',
        },
      });
      assert.equal(saved.status, 201, 'the write succeeds while the trail cannot be written');
      entryId = saved.body.entry.id;
      assert.equal(await flush(), 0);
      assert.ok(server.cairn.domain.audit.pending > 0, 'the event is kept for a retry');
      const warning = server.logs.find((l) => l.includes('could not write the audit trail'));
      assert.ok(warning, 'the failure is logged');
      assert.ok(!warning.includes('Rotate deploy keys'), 'the log names the failure, not the event');
    } finally {
      await sql`ALTER TABLE audit_events_away RENAME TO audit_events`.execute(db);
    }
    assert.ok((await flush()) > 0);
    const events = await server.cairn.store.listAuditEvents({ kind: 'entry.created', targetId: entryId, limit: 10 });
    assert.equal(events.length, 1);
    assert.deepEqual(
      [events[0]!.organizationId, events[0]!.target?.name],
      [tenant.orgId, `${orgPack.name} › Rotate deploy keys yearly`],
    );
  });

  test('the hourly purge removes events older than CAIRN_AUDIT_DAYS and keeps newer ones', async () => {
    const old = {
      id: 'aud_old0000000000000000001',
      at: '2001-01-01T00:00:00.000Z',
      kind: 'entry.created',
      actorUserId: tenant.owner.id,
      actorEmail: null,
      organizationId: tenant.orgId,
      credential: null,
      client: null,
      target: null,
      outcome: 'success' as const,
    };
    await server.cairn.store.appendAuditEvents([old]);
    const before = (await server.cairn.store.listAuditEvents({ organizationId: tenant.orgId, limit: 200 })).length;
    await server.cairn.trash.runNow();
    const afterPurge = await server.cairn.store.listAuditEvents({ organizationId: tenant.orgId, limit: 200 });
    assert.equal(afterPurge.length, before - 1);
    assert.ok(!afterPurge.some((e) => e.id === old.id));
  });

  test('cairn audit prints the organization trail for the operator, as lines or JSON', async () => {
    const { config } = server.cairn;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CAIRN_DATA_DIR: config.dataDir,
      CAIRN_LOG_LEVEL: 'error',
      DATABASE_URL: config.databaseUrl,
    };
    if (!config.databaseUrl) delete env.DATABASE_URL;
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [...cairnCommand(), 'audit', ...args], { cwd: SERVER_DIR, env });
    // Four commands at once (each is a process that takes seconds to start); the key made on the
    // server is of a kind the three reads do not ask for.
    const [asJson, asLines] = await Promise.all([
      cli('--org', tenant.orgName, '--user', tenant.member.email, '--kind', 'entry', '--since', '7d', '--json'),
      cli('--org', tenant.orgName, '--kind', 'entry.updated'),
      assert.rejects(cli('--since', 'last week'), (e: { stderr: string }) => /since: must be a date/.test(e.stderr)),
      // What the operator does on the server is recorded too, as the cli credential with no actor.
      promisify(execFile)(
        process.execPath,
        [...cairnCommand(), 'keys', 'create', '--user', tenant.owner.email, '--name', 'made on the server'],
        { cwd: SERVER_DIR, env },
      ),
    ]);
    const json = JSON.parse(asJson.stdout) as { events: AuditEvent[] };
    assert.ok(json.events.length >= 2);
    assert.ok(
      json.events.every(
        (e) => e.kind.startsWith('entry.') && e.actorUserId === tenant.member.id && e.organizationId === tenant.orgId,
      ),
    );
    const lines = asLines.stdout.trim().split('\n');
    assert.match(
      lines[0]!,
      new RegExp(
        `\\tentry\\.updated\\tsuccess\\t${tenant.member.email.replace('.', '\\.')}\\tapi_key member key\\tcairn-test 1\\.0\\.0\\tentry ent_`,
      ),
    );
    const made = JSON.parse((await cli('--kind', 'key.created', '--limit', '1', '--json')).stdout) as {
      events: AuditEvent[];
    };
    assert.deepEqual(
      made.events.map((e) => [e.actorUserId, e.credential?.type, e.target?.name]),
      [[null, 'cli', 'made on the server (read-write)']],
    );
  });

  test('invitations, role changes, team changes and removals are recorded in the organization trail', async () => {
    const owner = await signedIn(tenant.owner.email);
    const used = await owner(`/api/v1/organizations/${tenant.orgId}/invitations`, {
      method: 'POST',
      body: { role: 'member' },
    });
    const dropped = await owner(`/api/v1/organizations/${tenant.orgId}/invitations`, { method: 'POST', body: {} });
    const token = new URL(used.body.inviteUrl).searchParams.get('invite')!;
    const joiner = browser();
    const joined = await joiner('/api/v1/signup', {
      method: 'POST',
      body: { email: `joiner-${tenant.orgId.slice(-6)}@example.test`, password: PASSWORD, invite: token },
    });
    assert.equal(joined.status, 201);
    const open = (await owner(`/api/v1/organizations/${tenant.orgId}/invitations`)).body.invitations as {
      id: string;
    }[];
    assert.equal(open.length, 1);
    assert.equal(
      (await owner(`/api/v1/organizations/${tenant.orgId}/invitations/${open[0]!.id}`, { method: 'DELETE' })).status,
      204,
    );
    assert.equal(
      (
        await owner(`/api/v1/organizations/${tenant.orgId}/members/${tenant.member.id}`, {
          method: 'PATCH',
          body: { role: 'admin' },
        })
      ).status,
      200,
    );
    assert.equal(
      (await owner(`/api/v1/teams/${tenant.teamId}/members/${tenant.member.id}`, { method: 'DELETE' })).status,
      204,
    );
    assert.equal(
      (await owner(`/api/v1/organizations/${tenant.orgId}/members/${tenant.member.id}`, { method: 'DELETE' })).status,
      204,
    );
    await flush();
    const kinds = ((await owner(`/api/v1/audit?org=${tenant.orgId}&limit=200`)).body.events as AuditEvent[]).map(
      (e) => e.kind,
    );
    for (const kind of [
      'invite.created',
      'invite.accepted',
      'invite.cancelled',
      'member.role_changed',
      'team.member_removed',
      'member.removed',
    ])
      assert.ok(kinds.includes(kind), kind);
    assert.equal(kinds.filter((k) => k === 'invite.created').length, 2);
    const accepted = (await owner(`/api/v1/audit?org=${tenant.orgId}&kind=invite.accepted`)).body
      .events as AuditEvent[];
    assert.equal(accepted[0]!.actorUserId, joined.body.user.id);
    assert.ok(!JSON.stringify(accepted).includes(token), 'the invite token is never recorded');
    assert.ok(dropped.status === 201);
    const role = (await owner(`/api/v1/audit?org=${tenant.orgId}&kind=member.role_changed`)).body
      .events as AuditEvent[];
    assert.equal(role[0]!.target?.name, `${tenant.member.email}: member → admin`);
  });
});

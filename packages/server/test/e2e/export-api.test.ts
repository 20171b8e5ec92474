import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadAccess } from '../../src/domain/access.js';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { createDatapack } from '../../src/domain/datapacks.js';
import { saveEntry } from '../../src/domain/entries.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
const ids: Record<string, string> = {};

before(async () => {
  server = await startTestCairn();
  tenant = await createTenant(server.cairn);
  const deps = server.cairn.domain;
  const as = (userId: string) => loadAccess(deps, { userId, client: 'test', via: 'session', scope: 'read-write' });
  const owner = await as(tenant.owner.id);
  const member = await as(tenant.member.id);
  const outsider = await as(tenant.outsider.id);
  const team = await createDatapack(deps, member, { name: 'Team pack', scope: 'team', teamId: tenant.teamId });
  ids.team = team.id;
  ids.memberNote = (
    await saveEntry(deps, member, { title: 'Member personal note', content: 'Only the member reads this.' })
  ).entry.id;
  ids.teamNote = (
    await saveEntry(deps, member, {
      datapack: team.id,
      title: 'Team rule by member',
      content: 'Squash before merging.',
      kind: 'standard',
    })
  ).entry.id;
  ids.orgNote = (
    await saveEntry(deps, owner, {
      datapack: tenant.orgName,
      title: 'Org policy by owner',
      content: 'Security review for new vendors.',
      kind: 'policy',
    })
  ).entry.id;
  ids.ownerNote = (
    await saveEntry(deps, owner, { title: 'Owner personal note', content: 'Only the owner reads this.' })
  ).entry.id;
  ids.outsiderNote = (
    await saveEntry(deps, outsider, { title: 'Outsider secret plan', content: 'Nobody else reads this.' })
  ).entry.id;
  ids.outsiderPack = (await deps.store.findDatapacks([{ scope: 'personal', ownerId: tenant.outsider.id }]))[0]!.id;
});
after(() => server?.close());

const get = (path: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/api/v1${path}`, { headers: { ...(key && { authorization: `Bearer ${key}` }), ...headers } });

/** The lines of a download, parsed. */
async function lines(
  response: Response,
): Promise<{ type?: string; id: string; title?: string; name?: string; format?: string }[]> {
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.text())
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
}
const entryIds = (ls: { type?: string; id: string }[]) =>
  ls
    .filter((l) => l.type === 'entry')
    .map((l) => l.id)
    .sort();

describe('GET /api/v1/export streams what the caller can read, and nothing else', () => {
  test('a read-only key exports exactly what its user can read, as an attachment', async () => {
    const { key } = await createApiKey(server.cairn.domain, tenant.member.id, 'reader', { scope: 'read' });
    const response = await get('/export', key);
    assert.match(
      response.headers.get('content-disposition') ?? '',
      /^attachment; filename="cairn-export-readable-\d{4}-\d{2}-\d{2}\.jsonl"$/,
    );
    assert.match(response.headers.get('content-type') ?? '', /application\/x-ndjson/);
    const got = await lines(response);
    assert.equal(got[0]!.format, 'cairn-export');
    assert.deepEqual(got.at(-1), {
      type: 'end',
      datapacks: got.filter((l) => l.type === 'datapack').length,
      entries: 3,
      usage: 0,
    });
    assert.deepEqual(
      entryIds(got),
      [ids.memberNote, ids.teamNote, ids.orgNote].sort(),
      'own, team and organization entries; not the owner’s or the outsider’s personal ones',
    );
  });

  test('?datapack= another user’s datapack is not_found, the same as one that does not exist', async () => {
    for (const id of [ids.outsiderPack, 'dpk_doesnotexist']) {
      const response = await get(`/export?datapack=${id}`, tenant.member.key);
      assert.equal(response.status, 404);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'not_found');
    }
    const one = await lines(await get(`/export?datapack=${ids.team}`, tenant.member.key));
    assert.deepEqual(entryIds(one), [ids.teamNote]);
  });

  test('a revoked key gets 401, and no credentials get 401', async () => {
    const { key, record } = await createApiKey(server.cairn.domain, tenant.member.id, 'soon revoked', {
      scope: 'read',
    });
    assert.equal((await get('/export', key)).status, 200);
    await revokeApiKey(server.cairn.domain, record.id);
    assert.equal((await get('/export', key)).status, 401);
    assert.equal((await get('/export')).status, 401);
  });

  test('the whole organization only for its admins and owners; a key with no access to it gets not_found', async () => {
    assert.equal(
      (await get(`/export?organization=${tenant.orgId}`, tenant.outsider.key)).status,
      404,
      'an outsider cannot tell the organization exists',
    );
    assert.equal(
      (await get(`/export?organization=${encodeURIComponent(tenant.orgName)}`, tenant.outsider.key)).status,
      404,
    );
    assert.equal(
      (await get(`/export?organization=${tenant.orgId}`, tenant.member.key)).status,
      403,
      'a plain member is told only admins may',
    );
    const org = await lines(await get(`/export?organization=${tenant.orgId}`, tenant.owner.key));
    assert.deepEqual(
      entryIds(org),
      [ids.teamNote, ids.orgNote].sort(),
      'its teams’ datapacks too, but no one’s personal ones',
    );
    await server.cairn.domain.audit.flush();
    const [event] = await server.cairn.store.listAuditEvents({
      kind: 'data.exported',
      actorUserId: tenant.owner.id,
      limit: 1,
    });
    assert.equal(event?.organizationId, tenant.orgId, 'the audit trail records who exported the organization');
    assert.equal(event?.credential?.type, 'api_key');
  });

  test('?mine=true from a portal session: the personal datapacks, and only what the user wrote elsewhere', async () => {
    const cookie = await signIn(server.baseUrl, tenant.owner.email);
    const response = await get('/export?mine=true', undefined, { cookie });
    assert.match(response.headers.get('content-disposition') ?? '', /filename="cairn-export-my-data-/);
    const got = await lines(response);
    assert.deepEqual(entryIds(got), [ids.ownerNote, ids.orgNote].sort());
    assert.ok(
      !got.some((l) => l.type === 'datapack' && l.id === ids.team),
      'a shared datapack the user wrote nothing in is left out',
    );
  });
});

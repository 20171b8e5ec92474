// POST /api/v1/import: a file GET /api/v1/export wrote, imported by a signed-in caller (the portal's
// import), with a dry run first; only into datapacks the caller may write, nothing else learned.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadAccess } from '../../src/domain/access.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { saveEntry } from '../../src/domain/entries.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
let noteId: string;
let mine: string;
let orgFile: string;
before(async () => {
  server = await startTestCairn();
  tenant = await createTenant(server.cairn);
  const deps = server.cairn.domain;
  const as = (userId: string) => loadAccess(deps, { userId, client: 'test', via: 'session', scope: 'read-write' });
  noteId = (
    await saveEntry(deps, await as(tenant.member.id), {
      title: 'Deploys happen on Tuesdays',
      content: 'Never on Fridays.',
    })
  ).entry.id;
  await saveEntry(deps, await as(tenant.owner.id), {
    datapack: tenant.orgName,
    title: 'Vendors need a security review',
    content: 'Before the contract is signed.',
    kind: 'policy',
  });
  mine = await (await get('/export?mine=true', tenant.member.key)).text();
  orgFile = await (await get(`/export?organization=${tenant.orgId}`, tenant.owner.key)).text();
});
after(() => server?.close());

const get = (path: string, key: string) =>
  fetch(`${server.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
const post = (key: string, body: string, dryRun = false) =>
  fetch(`${server.baseUrl}/api/v1/import${dryRun ? '?dryRun=true' : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    body,
  });
const entryCount = async () => (await server.cairn.store.entryStates([noteId])).size;
const message = async (r: Response) => ((await r.json()) as { error: { message: string } }).error.message;

describe('POST /api/v1/import', () => {
  test('a dry run says what would be created; the import brings a purged entry back; again, nothing changes', async () => {
    assert.equal((await fetch(`${server.baseUrl}/api/v1/entries/${noteId}`, auth('DELETE'))).status, 200);
    assert.equal((await fetch(`${server.baseUrl}/api/v1/trash/entries/${noteId}`, auth('DELETE'))).status, 204);
    assert.equal(await entryCount(), 0);

    const preview = await post(tenant.member.key, mine, true);
    assert.equal(preview.status, 200);
    const plan = (await preview.json()) as Record<string, unknown>;
    assert.equal(plan.dryRun, true);
    assert.deepEqual(plan.entries, { created: 1, updated: 0, unchanged: 0, skipped: 0 });
    assert.deepEqual(plan.datapacks, { created: 0, updated: 0, unchanged: 1, skipped: 0 });
    assert.equal(await entryCount(), 0, 'a dry run writes nothing');

    const done = await post(tenant.member.key, mine);
    assert.equal(done.status, 200);
    assert.deepEqual(((await done.json()) as { entries: unknown }).entries, {
      created: 1,
      updated: 0,
      unchanged: 0,
      skipped: 0,
    });
    const back = await get(`/entries/${noteId}`, tenant.member.key);
    assert.equal(((await back.json()) as { entry: { title: string } }).entry.title, 'Deploys happen on Tuesdays');

    const again = (await (await post(tenant.member.key, mine)).json()) as { entries: unknown };
    assert.deepEqual(again.entries, { created: 0, updated: 0, unchanged: 1, skipped: 0 });
  });

  test('someone else’s file is not_found for a stranger, forbidden for a member who is not an admin', async () => {
    const stranger = await post(tenant.outsider.key, mine, true);
    assert.equal(stranger.status, 404);
    assert.match(await message(stranger), /you can import only your own/);
    const outsiderOrg = await post(tenant.outsider.key, orgFile, true);
    assert.equal(outsiderOrg.status, 404, 'an outsider cannot tell the organization exists');
    assert.match(await message(outsiderOrg), /you are not a member of an organization named/);
    const member = await post(tenant.member.key, orgFile, true);
    assert.equal(member.status, 403);
    assert.match(await message(member), /only its admins can import it/);
    const admin = await post(tenant.owner.key, orgFile, true);
    assert.equal(admin.status, 200);
  });

  test('a crafted file cannot credit entries to another user here: only the caller is linked', async () => {
    const forged = mine
      .split('\n')
      .map((line) => {
        if (!line.includes('"type":"entry"')) return line;
        const e = JSON.parse(line) as Record<string, unknown> & { history: Record<string, unknown>[] };
        const by = tenant.owner.email;
        return JSON.stringify({
          ...e,
          id: 'ent_forged0000000000000001',
          createdBy: by,
          updatedBy: by,
          history: e.history.map((v) => ({ ...v, changedBy: by })),
        });
      })
      .join('\n');
    const done = await post(tenant.member.key, forged);
    assert.equal(done.status, 200);
    const stored = await server.cairn.store.getEntry('ent_forged0000000000000001');
    assert.ok(stored, 'the entry was imported');
    assert.equal(stored.createdBy, tenant.owner.email, 'kept as text, not linked to the owner');
    assert.notEqual(stored.createdBy, tenant.owner.id);
    const history = await server.cairn.store.listEntryVersions('ent_forged0000000000000001');
    assert.ok(history.every((v) => v.changedBy !== tenant.owner.id));
    assert.equal(
      ((await (await post(tenant.member.key, mine, true)).json()) as { entries: { unchanged: number } }).entries
        .unchanged,
      1,
      "the caller's own entry is still recognised as theirs",
    );
  });

  test('a read-only key, an oversized, malformed or NUL-holding body are refused; nothing is written', async () => {
    const { key } = await createApiKey(server.cairn.domain, tenant.member.id, 'reader', { scope: 'read' });
    assert.equal((await post(key, mine, true)).status, 403);
    assert.equal((await post(tenant.member.key, 'x'.repeat(17 * 1024 * 1024))).status, 413);
    const lines = mine.split('\n');
    const broken = [lines[0], '{"type":"datapack",', ...lines.slice(1)].join('\n');
    const bad = await post(tenant.member.key, broken);
    assert.equal(bad.status, 400);
    assert.match(await message(bad), /^Line 2: not valid JSON/);
    const cut = await post(tenant.member.key, lines.slice(0, -2).join('\n'));
    assert.equal(cut.status, 400);
    assert.match(await message(cut), /without its end line: it was cut off/);
    const nul = await post(tenant.member.key, mine.replace('Never on Fridays.', 'Never\\u0000on Fridays.'));
    assert.equal(nul.status, 400);
    assert.match(await message(nul), /NUL/);
    assert.equal((await post(tenant.member.key, '')).status, 400);
  });
});

function auth(method: string): RequestInit {
  return { method, headers: { authorization: `Bearer ${tenant.member.key}` } };
}

// POST /api/v1/datapacks/:id/rules/import: the planner of `cairn rules import` over the JSON API,
// for a portal's upload preview; write access and the body's size are checked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadAccess } from '../../src/domain/access.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { createDatapack } from '../../src/domain/datapacks.js';
import { IMPORTED_TAG } from '../../src/domain/rules-import/plan.js';
import { addUserToTeam } from '../../src/domain/teams.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
let team: string;
let readKey: string;
before(async () => {
  server = await startTestCairn();
  tenant = await createTenant(server.cairn);
  const member = await loadAccess(server.cairn.domain, {
    userId: tenant.member.id,
    client: 'test',
    via: 'session',
    scope: 'read-write',
  });
  team = (
    await createDatapack(server.cairn.domain, member, { name: 'Team rules', scope: 'team', teamId: tenant.teamId })
  ).id;
  await addUserToTeam(server.cairn.domain, server.cairn.auth, tenant.teamId, tenant.owner.id);
  readKey = (await createApiKey(server.cairn.domain, tenant.member.id, 'read only', { scope: 'read' })).key;
});
after(() => server?.close());

const post = (key: string, body: unknown, id = team) =>
  fetch(`${server.baseUrl}/api/v1/datapacks/${id}/rules/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const FILES = [
  { path: '.cursor/rules/ts.mdc', content: '---\nglobs: "**/*.ts"\n---\n# No any\n\nType everything.\n' },
  { path: 'AGENTS.md', content: '# Repo rule\n\nAlways on.\n' },
  { path: 'docs/readme.md', content: 'not a rule' },
];
const count = async () =>
  (await server.cairn.store.filteredEntryIds({ datapackIds: [team], tags: [IMPORTED_TAG] })).size;

describe('POST /api/v1/datapacks/:id/rules/import', () => {
  test('dryRun previews, then the import writes; a team member may not make an always rule', async () => {
    const preview = await post(tenant.member.key, { files: FILES, project: 'ledger', dryRun: true });
    assert.equal(preview.status, 200);
    const plan = (await preview.json()) as {
      dryRun: boolean;
      counts: Record<string, number>;
      rules: { path: string; action: string; notes: string[]; applies: unknown }[];
    };
    assert.equal(plan.dryRun, true);
    assert.deepEqual(plan.counts, { create: 1, update: 0, unchanged: 0, not_mapped: 2 });
    const cursor = plan.rules.find((r) => r.path === '.cursor/rules/ts.mdc')!;
    assert.deepEqual(cursor.applies, { always: false, files: ['**/*.ts'], projects: ['ledger'] });
    assert.match(plan.rules.find((r) => r.path === 'AGENTS.md')!.notes.join(), /may not make "always" rules/);
    assert.equal(await count(), 0, 'a dry run writes nothing');
    const done = await post(tenant.member.key, { files: FILES, project: 'ledger' });
    assert.equal(done.status, 200);
    assert.equal(await count(), 1);
  });

  test('an admin imports the always rule; the same text from a member is not turned into a change of it', async () => {
    const admin = await post(tenant.owner.key, { files: [FILES[1]], project: 'ledger' });
    assert.equal(admin.status, 200);
    assert.equal(((await admin.json()) as { counts: { create: number } }).counts.create, 1);
    const same = await post(tenant.member.key, {
      files: [
        { path: '.claude/rules/commits.md', content: '---\npaths: ["src/**"]\n---\n# Repo rule\n\nAlways on.\n' },
      ],
      project: 'other',
    });
    const r = (await same.json()) as { counts: { not_mapped: number }; rules: { notes: string[] }[] };
    assert.equal(r.counts.not_mapped, 1);
    assert.match(r.rules[0]!.notes.join(), /which applies always: only an organization admin can change it/);
  });

  test('a stranger, a read-only key and an oversized or malformed body are refused; nothing is written', async () => {
    const before = await count();
    const stranger = await post(tenant.outsider.key, { files: FILES, project: 'ledger' });
    assert.equal(stranger.status, 404);
    const readOnly = await post(readKey, { files: FILES, project: 'ledger' });
    assert.equal(readOnly.status, 403);
    const huge = await post(tenant.member.key, {
      files: [{ path: 'AGENTS.md', content: 'x'.repeat(2 * 1024 * 1024) }],
      project: 'ledger',
    });
    assert.equal(huge.status, 413);
    const bad = await post(tenant.member.key, { files: [{ path: 'AGENTS.md' }], project: 'ledger' });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /files\.0\.content/);
    assert.equal(await count(), before);
  });
});

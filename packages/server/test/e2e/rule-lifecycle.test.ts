// A rule's lifecycle (#38): its owner, review-by and expiry dates through MCP and the JSON API;
// an expired rule is never served by get_guidance and comes back when renewed.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { rulesExport } from '../../src/cli/rules-commands.js';
import { createUser } from '../../src/domain/accounts.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { importFile } from '../../src/domain/import.js';
import { addUserToTeam, removeUserFromTeam } from '../../src/domain/teams.js';
import { callTool, callToolError } from '../../src/testing/mcp-client.js';
import { startTestCairn } from '../../src/testing/test-cairn.js';
import { member, outsider, owner, server, tenant, useTenantCairn } from './tenant-cairn.fixture.js';

/** The domain's clock for the whole file: every date below is written by hand against this day. */
const TODAY = '2030-06-15';

let teamPack: string;
useTenantCairn(async () => {
  server.cairn.domain.now = () => `${TODAY}T12:00:00.000Z`;
  teamPack = (
    await callTool(member, 'create_datapack', { name: 'Lifecycle standards', scope: 'team', teamId: tenant.teamId })
  ).datapack.id;
});

const api = async (path: string, init: RequestInit = {}, key = tenant.member.key) => {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const patch = (id: string, body: Record<string, unknown>, key?: string) =>
  api(`/entries/${id}`, { method: 'PATCH', body: JSON.stringify(body) }, key);

type Answer = Record<string, any>;
const givenIds = (g: Answer): string[] =>
  g.levels.flatMap((l: { items: { entry: { id: string } }[] }) => l.items.map((i) => i.entry.id));
const pointedIds = (g: Answer): string[] => g.mayAlsoApply.map((p: { id: string }) => p.id);
const served = (g: Answer) => [...givenIds(g), ...pointedIds(g)];

const saveRule = async (title: string, extra: Record<string, unknown> = {}) => {
  const saved = await callTool(member, 'save_entry', {
    datapack: teamPack,
    kind: 'standard',
    title,
    content: `${title}: the whole team follows this.`,
    ...extra,
  });
  assert.equal(saved.status, 'created', JSON.stringify(saved));
  return saved.entry as { id: string; version: number; owner: string; reviewBy: string | null; expires: string | null };
};

describe('dates and owner on save and update', () => {
  test('a new rule is owned by its author and has no dates', async () => {
    const e = await saveRule('Owned by its author');
    assert.equal(e.owner, tenant.member.id);
    assert.equal(e.reviewBy, null);
    assert.equal(e.expires, null);
  });

  test('a date that is not a real YYYY-MM-DD is refused, through MCP and the JSON API', async () => {
    for (const bad of ['2030-02-30', '2030-6-20', '20300620', 'tomorrow']) {
      const message = await callToolError(member, 'save_entry', {
        datapack: teamPack,
        title: `Bad date ${bad}`,
        content: 'Never saved.',
        reviewBy: bad,
      });
      assert.match(message, /reviewBy: must be a real date written YYYY-MM-DD/, bad);
    }
    const viaApi = await api('/entries', {
      method: 'POST',
      body: JSON.stringify({ datapack: teamPack, title: 'Bad expiry', content: 'Never saved.', expires: '2030-13-01' }),
    });
    assert.equal(viaApi.status, 400);
    assert.match(viaApi.body.error.message, /expires: must be a real date written YYYY-MM-DD/);
  });

  test('an expiry before today is refused with what to do; today and a past review-by date are taken', async () => {
    const message = await callToolError(member, 'save_entry', {
      datapack: teamPack,
      title: 'Already expired',
      content: 'Never saved.',
      expires: '2030-06-14',
    });
    assert.match(message, /expires: 2030-06-14 is before today \(2030-06-15\); give today or a later date/);
    const e = await saveRule('Expires today, review overdue', { expires: TODAY, reviewBy: '2030-01-01' });
    assert.equal(e.expires, TODAY);
    assert.equal(e.reviewBy, '2030-01-01');
    const refused = await patch(e.id, { expectedVersion: e.version, expires: '2029-12-31' });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /is before today/);
  });

  test('the owner must be a member who can read the datapack', async () => {
    // The organization's owner is no member of the team, the outsider not of the organization.
    for (const who of [tenant.owner.id, tenant.outsider.id, 'u_nobody']) {
      const message = await callToolError(member, 'save_entry', {
        datapack: teamPack,
        title: `Owned by ${who}`,
        content: 'Never saved.',
        owner: who,
      });
      assert.match(message, /owner: .* is not a member who can read "Lifecycle standards"/, who);
    }
    const policy = await callTool(owner, 'save_entry', {
      datapack: tenant.orgName,
      kind: 'policy',
      title: 'Owned by a member',
      content: 'A member answers for this organization policy.',
      owner: tenant.member.id,
    });
    assert.equal(policy.entry.owner, tenant.member.id);
    const refused = await patch(policy.entry.id, { expectedVersion: 1, owner: tenant.outsider.id }, tenant.owner.key);
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /owner: .* is not a member who can read/);
  });

  test('PATCH sets and clears the dates (null clears), each change a version', async () => {
    const e = await saveRule('Dates set and cleared');
    const set = await patch(e.id, { expectedVersion: 1, reviewBy: '2030-09-01', expires: '2031-01-01' });
    assert.equal(set.status, 200);
    assert.deepEqual(
      [set.body.entry.reviewBy, set.body.entry.expires, set.body.entry.version],
      ['2030-09-01', '2031-01-01', 2],
    );
    const cleared = await patch(e.id, { expectedVersion: 2, reviewBy: null, expires: null });
    assert.deepEqual([cleared.body.entry.reviewBy, cleared.body.entry.expires], [null, null]);
    const viaMcp = await callTool(member, 'update_entry', { id: e.id, expectedVersion: 3, expires: '2030-07-01' });
    assert.equal(viaMcp.entry.expires, '2030-07-01');
  });
});

describe('guidance serves no expired rule', () => {
  test('an expired rule is never returned by get_guidance (in full or as a pointer), nor by the JSON API, and comes back when renewed', async () => {
    const rule = await saveRule('Feature flags carry an owner', {
      expires: TODAY,
      applies: { projects: ['lifecycle-svc'] },
    });
    const task = 'add a feature flag owner for the checkout';
    assert.ok(
      givenIds(await callTool(member, 'get_guidance', { task, project: 'lifecycle-svc' })).includes(rule.id),
      'served through its day',
    );

    server.cairn.domain.now = () => '2030-06-17T08:00:00.000Z';
    try {
      for (const t of [task, 'Feature flags carry an owner', 'feature flags']) {
        assert.ok(
          !served(await callTool(member, 'get_guidance', { task: t, project: 'lifecycle-svc' })).includes(rule.id),
          t,
        );
        const hook = await api(`/guidance?task=${encodeURIComponent(t)}&project=lifecycle-svc`);
        assert.equal(hook.status, 200);
        assert.ok(!served(hook.body).includes(rule.id), `JSON API: ${t}`);
      }
      const listed = await api(`/expired?datapack=${teamPack}`);
      assert.equal(listed.status, 200);
      const row = listed.body.entries.find((r: { entry: { id: string } }) => r.entry.id === rule.id);
      assert.deepEqual(
        { expires: row?.entry.expires, datapack: row?.datapack.id, writable: row?.writable },
        { expires: TODAY, datapack: teamPack, writable: true },
      );

      const renewed = await patch(rule.id, { expectedVersion: rule.version, expires: '2030-12-31' });
      assert.equal(renewed.status, 200);
      assert.ok(
        givenIds(await callTool(member, 'get_guidance', { task, project: 'lifecycle-svc' })).includes(rule.id),
        'renewed, it is served',
      );
      const after = await api(`/expired?datapack=${teamPack}`);
      assert.ok(!after.body.entries.some((r: { entry: { id: string } }) => r.entry.id === rule.id));
    } finally {
      server.cairn.domain.now = () => `${TODAY}T12:00:00.000Z`;
    }
  });

  test('a rule past its review-by date is served and flagged reviewDue in the structured answer only', async () => {
    const due = await saveRule('Rotate the signing keys yearly', {
      reviewBy: '2030-06-14',
      applies: { projects: ['lifecycle-svc'] },
    });
    const fresh = await saveRule('Pin the base images', { reviewBy: TODAY, applies: { projects: ['lifecycle-svc'] } });
    const result = await member.callTool({
      name: 'get_guidance',
      arguments: { task: 'rotate signing keys', project: 'lifecycle-svc' },
    });
    const g = result.structuredContent as Answer;
    const items = g.levels.flatMap((l: { items: { entry: { id: string }; reviewDue?: boolean }[] }) => l.items);
    assert.equal(items.find((i: { entry: { id: string } }) => i.entry.id === due.id)?.reviewDue, true);
    assert.equal(
      items.find((i: { entry: { id: string } }) => i.entry.id === fresh.id)?.reviewDue,
      undefined,
      'due only past the date',
    );
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    assert.match(text, /Rotate the signing keys yearly/);
    assert.doesNotMatch(text, /review/i);
  });
});

describe('history and the expired listing', () => {
  test('restoring a version brings its expiry and review-by date back', async () => {
    const e = await saveRule('Restored with its dates', { expires: '2030-08-01', reviewBy: '2030-07-01' });
    await patch(e.id, { expectedVersion: 1, expires: '2031-08-01', reviewBy: null });
    const read = await callTool(member, 'get_entry', { id: e.id, includeHistory: true });
    assert.deepEqual(
      read.history.map((v: { expires: string | null; reviewBy: string | null }) => [v.expires, v.reviewBy]),
      [
        ['2030-08-01', '2030-07-01'],
        ['2031-08-01', null],
      ],
    );
    const restored = await api(`/entries/${e.id}/restore`, { method: 'POST', body: JSON.stringify({ version: 1 }) });
    assert.equal(restored.status, 200);
    assert.deepEqual([restored.body.entry.expires, restored.body.entry.reviewBy], ['2030-08-01', '2030-07-01']);
  });

  test('a restored owner who left the team yields to the current owner, else the restorer (API, MCP)', async () => {
    const teammate = async (who: string) => {
      const { user } = await createUser(server.cairn.domain, server.cairn.auth, {
        email: `${who}-${tenant.teamId}@example.test`,
        password: 'correct horse battery',
        name: who,
        org: tenant.orgName,
        join: true,
      });
      await addUserToTeam(server.cairn.domain, server.cairn.auth, tenant.teamId, user.id);
      return user.id;
    };
    const leaver = await teammate('leaver');
    const stayer = await teammate('stayer');
    const byStayer = await saveRule('Owned by one who stays', { owner: stayer });
    await patch(byStayer.id, { expectedVersion: 1, owner: tenant.member.id });
    const toCurrent = await saveRule('Owned by one who leaves, then another', { owner: leaver });
    await patch(toCurrent.id, { expectedVersion: 1, owner: stayer });
    const toRestorer = await saveRule('Owned by one who leaves, dates changed', { owner: leaver });
    await patch(toRestorer.id, { expectedVersion: 1, reviewBy: '2030-12-01' });
    const trashed = await saveRule('Owned by one who leaves, then deleted', { owner: leaver });
    await callTool(member, 'delete_entry', { id: trashed.id });
    await removeUserFromTeam(server.cairn.domain, server.cairn.auth, tenant.teamId, leaver);

    const restore = (id: string) => api(`/entries/${id}/restore`, { method: 'POST', body: '{"version":1}' });
    const kept = await restore(byStayer.id);
    assert.equal(kept.status, 200);
    assert.equal(kept.body.entry.owner, stayer, "the version's owner can still read: kept");
    const current = await restore(toCurrent.id);
    assert.equal(current.status, 200);
    assert.deepEqual([current.body.entry.owner, current.body.entry.version], [stayer, 3], 'the current owner stays');
    const viaMcp = await callTool(member, 'restore_entry', { id: toRestorer.id, version: 1 });
    assert.deepEqual(
      [viaMcp.entry.owner, viaMcp.entry.reviewBy, viaMcp.entry.version],
      [tenant.member.id, null, 3],
      'neither can read: the restorer answers for it',
    );
    const undeleted = await api(`/entries/${trashed.id}/restore`, { method: 'POST' });
    assert.equal(undeleted.status, 200);
    assert.deepEqual(
      [undeleted.body.undeleted, undeleted.body.entry.owner],
      [true, tenant.member.id],
      'out of the trash the same check',
    );
    const history = await callTool(member, 'get_entry', { id: toRestorer.id, includeHistory: true });
    assert.deepEqual(
      history.history.map((v: { owner: string }) => v.owner),
      [leaver, leaver, tenant.member.id],
    );
  });

  test('a stranger gets 404 for a datapack they cannot read, another organization sees none, a read key cannot renew', async () => {
    const rule = await saveRule('Expires for the access checks', { expires: TODAY });
    server.cairn.domain.now = () => '2030-06-20T08:00:00.000Z';
    try {
      assert.equal((await api(`/expired?datapack=${teamPack}`, {}, tenant.outsider.key)).status, 404);
      assert.equal((await api('/expired?datapack=dpk_doesnotexist')).status, 404);
      const theirs = await api('/expired', {}, tenant.outsider.key);
      assert.equal(theirs.status, 200);
      assert.deepEqual(theirs.body.entries, []);
      const mine = await api('/expired');
      assert.ok(mine.body.entries.some((r: { entry: { id: string } }) => r.entry.id === rule.id));
      const { key: readKey } = await createApiKey(server.cairn.domain, tenant.member.id, 'reader', { scope: 'read' });
      assert.equal((await api(`/expired?datapack=${teamPack}`, {}, readKey)).status, 200, 'a read key may list');
      assert.equal((await patch(rule.id, { expectedVersion: 1, expires: '2030-12-31' }, readKey)).status, 403);
      assert.equal(
        (await patch(rule.id, { expectedVersion: 1, expires: '2030-12-31' }, tenant.outsider.key)).status,
        404,
      );
      const outsiderTool = await callToolError(outsider, 'update_entry', {
        id: rule.id,
        expectedVersion: 1,
        expires: null,
      });
      assert.match(outsiderTool, /No entry .* is visible to you/);
    } finally {
      server.cairn.domain.now = () => `${TODAY}T12:00:00.000Z`;
    }
  });

  test('newest expiry first', async () => {
    const a = await saveRule('Expires first', { expires: '2030-06-16' });
    const b = await saveRule('Expires second', { expires: '2030-06-18' });
    server.cairn.domain.now = () => '2030-07-01T00:00:00.000Z';
    try {
      const ids = (await api(`/expired?datapack=${teamPack}`)).body.entries.map(
        (r: { entry: { id: string } }) => r.entry.id,
      );
      assert.ok(ids.indexOf(b.id) >= 0 && ids.indexOf(b.id) < ids.indexOf(a.id), JSON.stringify(ids));
    } finally {
      server.cairn.domain.now = () => `${TODAY}T12:00:00.000Z`;
    }
  });
});

describe('export and import', () => {
  test('owner, review-by and expiry survive export → import into another Cairn', async () => {
    const saved = await callTool(member, 'save_entry', {
      title: 'Personal review cadence',
      content: 'Review my own notes every quarter.',
      reviewBy: '2030-09-30',
      expires: '2031-03-31',
    });
    const pack = saved.entry.datapackId as string;
    const res = await fetch(`${server.baseUrl}/api/v1/export?datapack=${pack}`, {
      headers: { authorization: `Bearer ${tenant.member.key}` },
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const line = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.id === saved.entry.id);
    assert.deepEqual([line.owner, line.reviewBy, line.expires], [tenant.member.email, '2030-09-30', '2031-03-31']);

    const other = await startTestCairn();
    try {
      const { user } = await createUser(other.cairn.domain, other.cairn.auth, {
        email: tenant.member.email,
        password: 'correct horse battery',
        name: 'member',
        org: 'Elsewhere',
      });
      const report = await importFile(other.cairn.domain, () => text.trimEnd().split('\n'));
      assert.deepEqual(report.problems, []);
      const imported = await other.cairn.store.getEntry(saved.entry.id);
      assert.deepEqual([imported?.owner, imported?.reviewBy, imported?.expires], [user.id, '2030-09-30', '2031-03-31']);
    } finally {
      await other.close();
    }
  });

  test('every version keeps its owner, dates and applies through export → import: the history is equal', async () => {
    const e = await saveRule('History with a lifecycle', { reviewBy: '2030-09-01', applies: { files: ['**/*.sql'] } });
    await patch(e.id, { expectedVersion: 1, expires: '2031-01-31', applies: null });
    await patch(e.id, { expectedVersion: 2, reviewBy: null });
    const res = await fetch(`${server.baseUrl}/api/v1/export?datapack=${teamPack}`, {
      headers: { authorization: `Bearer ${tenant.member.key}` },
    });
    const text = await res.text();
    const line = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.id === e.id);
    assert.deepEqual(
      line.history.map((v: Record<string, unknown>) => [v.owner, v.reviewBy, v.expires, v.applies]),
      [
        [tenant.member.email, '2030-09-01', null, { always: false, files: ['**/*.sql'], projects: [] }],
        [tenant.member.email, '2030-09-01', '2031-01-31', null],
        [tenant.member.email, null, '2031-01-31', null],
      ],
    );
    const byEmail = async (store: typeof server.cairn.store, id: string) => {
      const emailOf = async (u: string | null) => (u === null ? null : ((await store.getUser(u))?.email ?? u));
      const out = [];
      for (const v of await store.listEntryVersions(id))
        out.push({
          ...v,
          changedBy: await emailOf(v.changedBy),
          ...(v.lifecycle && { lifecycle: { ...v.lifecycle, owner: await emailOf(v.lifecycle.owner) } }),
        });
      return out;
    };
    const other = await startTestCairn();
    try {
      await createUser(other.cairn.domain, other.cairn.auth, {
        email: tenant.member.email,
        password: 'correct horse battery',
        name: 'member',
        org: 'Elsewhere',
      });
      const report = await importFile(other.cairn.domain, () => text.trimEnd().split('\n'));
      assert.equal(report.datapacks.skipped, 1, 'the team does not exist there: the datapack is skipped');
    } finally {
      await other.close();
    }
    // A team datapack needs its team: move it to the member's personal datapack, as a file may.
    const personal = text.replace(
      /"scope":"team","owner":\{"team":"[^"]*","organization":"[^"]*"\}/,
      () => `"scope":"personal","owner":{"user":${JSON.stringify(tenant.member.email)}}`,
    );
    assert.notEqual(personal, text);
    const fresh = await startTestCairn();
    try {
      await createUser(fresh.cairn.domain, fresh.cairn.auth, {
        email: tenant.member.email,
        password: 'correct horse battery',
        name: 'member',
        org: 'Elsewhere',
      });
      const report = await importFile(fresh.cairn.domain, () => personal.trimEnd().split('\n'));
      assert.deepEqual(report.problems, []);
      assert.deepEqual(await byEmail(fresh.cairn.store, e.id), await byEmail(server.cairn.store, e.id));
      assert.equal((await fresh.cairn.store.listEntryVersions(e.id)).length, 3);
    } finally {
      await fresh.close();
    }
  });

  test('a file from before history kept the lifecycle imports, its versions without one', async () => {
    const saved = await callTool(member, 'save_entry', {
      title: 'Old file rule',
      content: 'Written before versions carried a lifecycle.',
      expires: '2031-03-31',
    });
    const res = await fetch(`${server.baseUrl}/api/v1/export?datapack=${saved.entry.datapackId}`, {
      headers: { authorization: `Bearer ${tenant.member.key}` },
    });
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((l) =>
        l.type === 'entry'
          ? {
              ...l,
              history: l.history.map(({ owner: _o, reviewBy: _r, expires: _e, applies: _a, ...v }: object & any) => v),
            }
          : l,
      );
    const other = await startTestCairn();
    try {
      await createUser(other.cairn.domain, other.cairn.auth, {
        email: tenant.member.email,
        password: 'correct horse battery',
        name: 'member',
        org: 'Elsewhere',
      });
      const report = await importFile(other.cairn.domain, () => lines.map((l) => JSON.stringify(l)));
      assert.deepEqual(report.problems, []);
      const [v] = await other.cairn.store.listEntryVersions(saved.entry.id);
      assert.deepEqual(
        [v?.lifecycle, v?.applies, (await other.cairn.store.getEntry(saved.entry.id))?.expires],
        [undefined, undefined, '2031-03-31'],
      );
    } finally {
      await other.close();
    }
  });
});

describe('cairn rules export', () => {
  test('writes a rule until it expires, and not after', async () => {
    const pack = (await callTool(member, 'create_datapack', { name: 'Exported rules' })).datapack.id as string;
    await callTool(member, 'save_entry', {
      datapack: pack,
      kind: 'preference',
      title: 'Short commit subjects',
      content: 'Keep commit subjects under 72 characters.',
      expires: TODAY,
      applies: { files: ['**/*.ts'] },
    });
    const written = async () => {
      const out = mkdtempSync(join(tmpdir(), 'cairn-rules-'));
      const print = process.stdout.write;
      process.stdout.write = (() => true) as typeof process.stdout.write;
      try {
        await rulesExport(server.cairn, { format: 'cursor', out, datapack: pack, user: tenant.member.email });
        return readdirSync(join(out, '.cursor/rules'), { withFileTypes: true }).map((f) => f.name);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      } finally {
        process.stdout.write = print;
        rmSync(out, { recursive: true, force: true });
      }
    };
    assert.deepEqual(await written(), ['short-commit-subjects.mdc']);
    server.cairn.domain.now = () => '2030-06-16T00:00:00.000Z';
    try {
      assert.deepEqual(await written(), []);
    } finally {
      server.cairn.domain.now = () => `${TODAY}T12:00:00.000Z`;
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool, callToolError, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;

const DAY_MS = 24 * 60 * 60 * 1000;

before(async () => {
  server = await startTestCairn({ env: { CAIRN_TRASH_DAYS: '7' } });
  tenant = await createTenant(server.cairn);
});
after(() => server?.close());

const api = async <T = any>(
  path: string,
  init: RequestInit & { key?: string } = {},
): Promise<{ status: number; body: T }> => {
  const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(init.key && { authorization: `Bearer ${init.key}` }),
      ...(init.headers as Record<string, string>),
    },
  });
  return { status: response.status, body: (await response.json()) as T };
};

interface Entry {
  id: string;
  version: number;
  title: string;
  content: string;
  datapackId: string;
}

async function save(
  key: string,
  fields: { title: string; content: string; datapack?: string; kind?: string },
): Promise<Entry> {
  const { status, body } = await api<{ status: string; entry: Entry }>('/entries', {
    key,
    method: 'POST',
    body: JSON.stringify({ kind: 'note', ...fields }),
  });
  assert.equal(status, 201, JSON.stringify(body));
  return body.entry;
}

const searchIds = async (key: string, q: string) =>
  (await api<{ results: { entry: { id: string } }[] }>(`/search?q=${encodeURIComponent(q)}`, { key })).body.results.map(
    (r) => r.entry.id,
  );

/** Runs `work` with the domain's clock moved `days` ahead. */
async function later<T>(days: number, work: () => Promise<T>): Promise<T> {
  const realNow = server.cairn.domain.now;
  server.cairn.domain.now = () => new Date(Date.now() + days * DAY_MS).toISOString();
  try {
    return await work();
  } finally {
    server.cairn.domain.now = realNow;
  }
}

describe('the trash of entries (JSON API)', () => {
  test('a deleted entry is in the trash, comes back with a restore as a new version, and is searchable again', async () => {
    const key = tenant.member.key;
    const entry = await save(key, {
      title: 'Kettle descaling',
      content: 'Descale the office kettle with citric acid every month.',
    });
    assert.deepEqual(await searchIds(key, 'citric kettle'), [entry.id]);
    assert.equal((await api(`/entries/${entry.id}`, { key, method: 'DELETE' })).status, 200);
    assert.deepEqual(await searchIds(key, 'citric kettle'), []);

    const trash = await api<{
      retentionDays: number;
      entries: {
        entry: Entry;
        deletedBy: string;
        deletedAt: string;
        purgeAt: string;
        writable: boolean;
        datapack: { name: string };
      }[];
    }>('/trash', {
      key,
    });
    assert.equal(trash.status, 200);
    assert.equal(trash.body.retentionDays, 7);
    const item = trash.body.entries.find((e) => e.entry.id === entry.id)!;
    assert.ok(item, 'the deleted entry is in the trash');
    assert.equal(item.deletedBy, tenant.member.id);
    assert.equal(item.datapack.name, 'Personal');
    assert.equal(item.writable, true);
    assert.equal(Date.parse(item.purgeAt) - Date.parse(item.deletedAt), 7 * DAY_MS);
    assert.ok(
      !(await api<{ entries: { entry: Entry }[] }>('/trash', { key: tenant.owner.key })).body.entries.some(
        (e) => e.entry.id === entry.id,
      ),
      "not in another user's trash",
    );

    const restored = await api<{ entry: Entry; restoredFrom: number; undeleted: boolean }>(
      `/entries/${entry.id}/restore`,
      { key, method: 'POST' },
    );
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.deepEqual([restored.body.entry.version, restored.body.restoredFrom, restored.body.undeleted], [3, 1, true]);
    assert.deepEqual(await searchIds(key, 'citric kettle'), [entry.id]);
    const history = (
      await api<{ history: { version: number; change: string; restoredFrom?: number }[] }>(
        `/entries/${entry.id}?history=true`,
        { key },
      )
    ).body.history;
    assert.deepEqual(
      history.map((v) => [v.version, v.change, v.restoredFrom]),
      [
        [1, 'create', undefined],
        [2, 'delete', undefined],
        [3, 'restore', 1],
      ],
    );
    assert.ok(
      !(await api<{ entries: { entry: Entry }[] }>('/trash', { key })).body.entries.some(
        (e) => e.entry.id === entry.id,
      ),
      'no longer in the trash',
    );
    const again = await api<{ error: { code: string; message: string } }>(`/entries/${entry.id}/restore`, {
      key,
      method: 'POST',
    });
    assert.equal(again.status, 400);
    assert.match(again.body.error.message, /not in the trash; to bring back an earlier version pass version/);
  });

  test('any earlier version of a live entry comes back as a new version, and history keeps everything', async () => {
    const key = tenant.member.key;
    const entry = await save(key, { title: 'Deploy window', content: 'Deploy on Tuesdays before noon.' });
    await api(`/entries/${entry.id}`, {
      key,
      method: 'PATCH',
      body: JSON.stringify({ expectedVersion: 1, content: 'Deploy on Wednesdays before noon.' }),
    });
    await api(`/entries/${entry.id}`, {
      key,
      method: 'PATCH',
      body: JSON.stringify({ expectedVersion: 2, title: 'Release window', content: 'Release any weekday.' }),
    });
    const restored = await api<{ entry: Entry; restoredFrom: number; undeleted: boolean }>(
      `/entries/${entry.id}/restore`,
      { key, method: 'POST', body: JSON.stringify({ version: 1 }) },
    );
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.deepEqual(
      [restored.body.entry.version, restored.body.entry.title, restored.body.entry.content, restored.body.undeleted],
      [4, 'Deploy window', 'Deploy on Tuesdays before noon.', false],
    );
    const history = (
      await api<{ history: { version: number; change: string; content: string }[] }>(
        `/entries/${entry.id}?history=true`,
        { key },
      )
    ).body.history;
    assert.deepEqual(
      history.map((v) => [v.version, v.change, v.content]),
      [
        [1, 'create', 'Deploy on Tuesdays before noon.'],
        [2, 'update', 'Deploy on Wednesdays before noon.'],
        [3, 'update', 'Release any weekday.'],
        [4, 'restore', 'Deploy on Tuesdays before noon.'],
      ],
    );
    assert.deepEqual(await searchIds(key, 'Tuesdays deploy'), [entry.id]);
    const missing = await api<{ error: { code: string; message: string } }>(`/entries/${entry.id}/restore`, {
      key,
      method: 'POST',
      body: JSON.stringify({ version: 9 }),
    });
    assert.equal(missing.status, 404);
    assert.match(missing.body.error.message, /has no version 9; its versions are 1 to 4/);
    const bad = await api(`/entries/${entry.id}/restore`, {
      key,
      method: 'POST',
      body: JSON.stringify({ version: 'one' }),
    });
    assert.equal(bad.status, 400);
  });

  test('applies is part of history: a change of it is a version that shows it, and restoring brings old globs back', async () => {
    const key = tenant.owner.key;
    const { status, body } = await api<{ entry: Entry }>('/entries', {
      key,
      method: 'POST',
      body: JSON.stringify({
        kind: 'standard',
        title: 'Typed sources',
        content: 'Type every exported function of the sources.',
        applies: { files: ['src/**/*.ts'] },
      }),
    });
    assert.equal(status, 201, JSON.stringify(body));
    const entry = body.entry;
    const patched = await api(`/entries/${entry.id}`, {
      key,
      method: 'PATCH',
      body: JSON.stringify({ expectedVersion: 1, applies: { files: ['docs/**'] } }),
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const history = async () =>
      (
        await api<{ history: { version: number; change: string; applies?: { files: string[] } }[] }>(
          `/entries/${entry.id}?history=true`,
          { key },
        )
      ).body.history.map((v) => [v.version, v.change, v.applies?.files]);
    assert.deepEqual(await history(), [
      [1, 'create', ['src/**/*.ts']],
      [2, 'update', ['docs/**']],
    ]);
    const restored = await api<{ entry: Entry & { applies: { files: string[] } } }>(`/entries/${entry.id}/restore`, {
      key,
      method: 'POST',
      body: JSON.stringify({ version: 1 }),
    });
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.deepEqual(restored.body.entry.applies.files, ['src/**/*.ts']);
    assert.deepEqual((await history()).at(-1), [3, 'restore', ['src/**/*.ts']]);
  });

  test('a restore that would duplicate a live entry of the datapack is refused with a clear conflict', async () => {
    const key = tenant.member.key;
    const first = await save(key, { title: 'Standup time', content: 'The standup starts at 9:30 sharp.' });
    await api(`/entries/${first.id}`, { key, method: 'DELETE' });
    const second = await save(key, { title: 'Standup time', content: 'The standup starts at 9:30 sharp.' });
    const refused = await api<{ error: { code: string; message: string; details?: { duplicateOf: string } } }>(
      `/entries/${first.id}/restore`,
      { key, method: 'POST' },
    );
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'conflict');
    assert.match(
      refused.body.error.message,
      new RegExp(`already holds a live entry with the same title and content \\(${second.id}`),
    );
    assert.equal((await api(`/entries/${first.id}`, { key })).status, 404, 'still in the trash');
  });

  test('only who may write the datapack restores: a plain member, a read key, a stranger and a revoked key are refused', async () => {
    const orgPack = (
      await api<{ datapacks: { id: string; scope: string }[] }>('/datapacks', { key: tenant.owner.key })
    ).body.datapacks.find((d) => d.scope === 'organization')!;
    const policy = await save(tenant.owner.key, {
      title: 'Laptop encryption',
      content: 'Every laptop uses full-disk encryption.',
      datapack: orgPack.id,
      kind: 'policy',
    });
    await api(`/entries/${policy.id}`, { key: tenant.owner.key, method: 'DELETE' });

    const memberTrash = await api<{ entries: { entry: Entry; writable: boolean }[] }>('/trash', {
      key: tenant.member.key,
    });
    const seen = memberTrash.body.entries.find((e) => e.entry.id === policy.id);
    assert.equal(seen?.writable, false, 'a plain member sees it in the trash, not restorable');
    const member = await api<{ error: { code: string; message: string } }>(`/entries/${policy.id}/restore`, {
      key: tenant.member.key,
      method: 'POST',
    });
    assert.equal(member.status, 403);
    assert.match(member.body.error.message, /Only organization admins/);

    const { key: readKey } = await createApiKey(server.cairn.domain, tenant.owner.id, 'reader', { scope: 'read' });
    const reader = await api<{ error: { code: string } }>(`/entries/${policy.id}/restore`, {
      key: readKey,
      method: 'POST',
    });
    assert.equal(reader.status, 403);

    const stranger = await api<{ error: { code: string } }>(`/entries/${policy.id}/restore`, {
      key: tenant.outsider.key,
      method: 'POST',
    });
    assert.equal(stranger.status, 404, "a stranger's key learns nothing");
    assert.ok(
      !(await api<{ entries: { entry: Entry }[] }>('/trash', { key: tenant.outsider.key })).body.entries.some(
        (e) => e.entry.id === policy.id,
      ),
    );

    const { key: revoked, record } = await createApiKey(server.cairn.domain, tenant.owner.id, 'to revoke');
    await revokeApiKey(server.cairn.domain, record.id);
    assert.equal((await api(`/entries/${policy.id}/restore`, { key: revoked, method: 'POST' })).status, 401);
    assert.equal((await api('/trash', { key: revoked })).status, 401);

    assert.equal(
      (await api(`/entries/${policy.id}`, { key: tenant.owner.key })).status,
      404,
      'none of them restored it',
    );
    assert.equal(
      (await api(`/entries/${policy.id}/restore`, { key: tenant.owner.key, method: 'POST' })).status,
      200,
      'an owner may',
    );
  });

  test('an unknown id or a NUL byte in the id is a clear 4xx', async () => {
    const key = tenant.member.key;
    const unknown = await api<{ error: { code: string; message: string } }>('/entries/ent_doesnotexist/restore', {
      key,
      method: 'POST',
    });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error.message, /No entry ent_doesnotexist is visible to you/);
    const nul = await api<{ error: { code: string; message: string } }>('/entries/ent_%00x/restore', {
      key,
      method: 'POST',
    });
    assert.equal(nul.status, 400);
    assert.match(nul.body.error.message, /NUL character/);
    assert.equal((await api('/datapacks/dpk_%00/restore', { key, method: 'POST' })).status, 400);
    assert.equal((await api('/datapacks/dpk_nope/restore', { key, method: 'POST' })).status, 404);
    assert.equal((await api('/trash?datapack=dpk_nope', { key })).status, 404);
  });

  test('delete forever: only an entry in the trash, only by who may write it; then it is gone with its history', async () => {
    const forever = async (id: string, key: string) => {
      const r = await fetch(`${server.baseUrl}/api/v1/trash/entries/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: r.status, text: await r.text() };
    };
    const orgPack = (
      await api<{ datapacks: { id: string; scope: string }[] }>('/datapacks', { key: tenant.owner.key })
    ).body.datapacks.find((d) => d.scope === 'organization')!;
    const rule = await save(tenant.owner.key, {
      title: 'Badge at the door',
      content: 'Everyone badges in at the front door.',
      datapack: orgPack.id,
      kind: 'policy',
    });
    const live = await forever(rule.id, tenant.owner.key);
    assert.equal(live.status, 409, 'a live entry is refused');
    assert.match(live.text, /not in the trash; delete it first/);
    await api(`/entries/${rule.id}`, { key: tenant.owner.key, method: 'DELETE' });

    assert.equal((await forever(rule.id, tenant.member.key)).status, 403, 'a plain member may not');
    const { key: readKey } = await createApiKey(server.cairn.domain, tenant.owner.id, 'reader', { scope: 'read' });
    assert.equal((await forever(rule.id, readKey)).status, 403, 'a read key may not');
    assert.equal((await forever(rule.id, tenant.outsider.key)).status, 404, 'a stranger learns nothing');
    assert.equal((await forever('ent_%00x', tenant.owner.key)).status, 400);
    assert.ok(await server.cairn.store.getEntry(rule.id), 'none of them deleted it');

    assert.equal((await forever(rule.id, tenant.owner.key)).status, 204);
    assert.equal(await server.cairn.store.getEntry(rule.id), undefined);
    assert.deepEqual(await server.cairn.store.listEntryVersions(rule.id), []);
    const trash = await api<{ entries: { entry: Entry }[] }>('/trash', { key: tenant.owner.key });
    assert.ok(!trash.body.entries.some((e) => e.entry.id === rule.id));
    assert.equal((await api(`/entries/${rule.id}/restore`, { key: tenant.owner.key, method: 'POST' })).status, 404);
    assert.equal((await forever(rule.id, tenant.owner.key)).status, 404, 'twice: already gone');
  });

  test('the purge deletes for good, versions included, what was deleted longer ago than CAIRN_TRASH_DAYS', async () => {
    const key = tenant.member.key;
    const old = await save(key, { title: 'Old parking rule', content: 'Park in bay C on Fridays.' });
    await api(`/entries/${old.id}`, { key, method: 'DELETE' });
    const recent = await save(key, { title: 'Bike shed code', content: 'The bike shed code is on the wiki.' });
    // Deleted 5 days after `old`: still within 7 days when `old` is 8 days old.
    await later(5, () => api(`/entries/${recent.id}`, { key, method: 'DELETE' }));
    await later(6, async () => {
      await server.cairn.trash.runNow();
      assert.ok(await server.cairn.store.getEntry(old.id), 'six days on, still there');
    });
    await later(8, async () => {
      const trash = await api<{ entries: { entry: Entry }[] }>('/trash', { key });
      assert.ok(!trash.body.entries.some((e) => e.entry.id === old.id), 'past the retention it is no longer listed');
      assert.equal((await api(`/entries/${old.id}/restore`, { key, method: 'POST' })).status, 404, 'nor restorable');
      await server.cairn.trash.runNow();
      assert.equal(await server.cairn.store.getEntry(old.id), undefined);
      assert.deepEqual(await server.cairn.store.listEntryVersions(old.id), []);
      assert.ok(await server.cairn.store.getEntry(recent.id), 'deleted three days ago: kept');
      assert.ok(
        (await api<{ entries: { entry: Entry }[] }>('/trash', { key })).body.entries.some(
          (e) => e.entry.id === recent.id,
        ),
      );
    });
  });
});

describe('the trash of datapacks', () => {
  test('a deleted datapack vanishes from every read path with its entries, and comes back with them', async () => {
    const key = tenant.member.key;
    const created = await api<{ datapack: { id: string } }>('/datapacks', {
      key,
      method: 'POST',
      body: JSON.stringify({ name: 'Garden', scope: 'personal' }),
    });
    const packId = created.body.datapack.id;
    const rose = await save(key, {
      title: 'Prune the roses',
      content: 'Prune the roses in late winter, before the buds swell.',
      datapack: packId,
      kind: 'preference',
    });
    const gone = await save(key, {
      title: 'Water the ferns',
      content: 'Water the ferns every other morning.',
      datapack: packId,
    });
    await api(`/entries/${gone.id}`, { key, method: 'DELETE' });

    const deleted = await api<{ datapack: { id: string; deletedAt: string } }>(`/datapacks/${packId}`, {
      key,
      method: 'DELETE',
    });
    assert.equal(deleted.status, 200);
    assert.ok(
      !(await api<{ datapacks: { id: string }[] }>('/datapacks', { key })).body.datapacks.some((d) => d.id === packId),
    );
    assert.equal((await api(`/datapacks/${packId}`, { key })).status, 404);
    assert.equal((await api(`/datapacks/${packId}/entries`, { key })).status, 404);
    assert.equal((await api(`/entries/${rose.id}`, { key })).status, 404);
    assert.ok(!(await searchIds(key, 'prune roses winter')).includes(rose.id), 'search does not find it');
    assert.equal((await api(`/search?q=roses&datapack=${packId}`, { key })).status, 404);
    assert.equal((await api(`/search?q=roses&datapack=Garden`, { key })).status, 404);
    const guidance = await api<{ levels: { items: { entry: { id: string } }[] }[] }>(
      `/guidance?task=${encodeURIComponent('prune the roses')}`,
      { key },
    );
    assert.ok(!guidance.body.levels.some((l) => l.items.some((i) => i.entry.id === rose.id)));
    assert.equal(
      (
        await api('/entries', {
          key,
          method: 'POST',
          body: JSON.stringify({ title: 'x', content: 'y', datapack: packId }),
        })
      ).status,
      404,
      'no writes into it',
    );
    const entryRestore = await api<{ error: { message: string } }>(`/entries/${gone.id}/restore`, {
      key,
      method: 'POST',
    });
    assert.equal(entryRestore.status, 409);
    assert.match(entryRestore.body.error.message, /in the trash; restore that datapack/);

    const trash = await api<{
      datapacks: { id: string; entryCount: number; deletedBy: string; writable: boolean }[];
      entries: { entry: Entry }[];
    }>('/trash', { key });
    const item = trash.body.datapacks.find((d) => d.id === packId)!;
    assert.deepEqual([item.entryCount, item.deletedBy, item.writable], [1, tenant.member.id, true]);
    assert.ok(
      !trash.body.entries.some((e) => e.entry.datapackId === packId),
      'its entries come back with it, not one by one',
    );
    assert.deepEqual(
      (await api<{ datapacks: { id: string }[] }>(`/trash?datapack=${packId}`, { key })).body.datapacks.map(
        (d) => d.id,
      ),
      [packId],
    );
    assert.equal((await api(`/datapacks/${packId}/restore`, { key: tenant.outsider.key, method: 'POST' })).status, 404);

    // Its name is free while it is in the trash; taking it blocks the restore with a clear conflict.
    const twin = await api<{ datapack: { id: string } }>('/datapacks', {
      key,
      method: 'POST',
      body: JSON.stringify({ name: 'garden', scope: 'personal' }),
    });
    assert.equal(twin.status, 201);
    const blocked = await api<{ error: { code: string; message: string } }>(`/datapacks/${packId}/restore`, {
      key,
      method: 'POST',
    });
    assert.equal(blocked.status, 409);
    assert.match(blocked.body.error.message, /named "Garden"/);
    await api(`/datapacks/${twin.body.datapack.id}`, { key, method: 'DELETE' });

    const restored = await api<{ datapack: { id: string; name: string } }>(`/datapacks/${packId}/restore`, {
      key,
      method: 'POST',
    });
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(restored.body.datapack.name, 'Garden');
    assert.equal((await searchIds(key, 'prune roses winter'))[0], rose.id);
    assert.equal((await api(`/entries/${rose.id}`, { key })).status, 200);
    assert.equal((await api(`/entries/${gone.id}`, { key })).status, 404, 'an entry deleted before stays in the trash');
    assert.ok(
      (await api<{ entries: { entry: Entry }[] }>('/trash', { key })).body.entries.some((e) => e.entry.id === gone.id),
    );
    assert.equal(
      (await api<{ error: { message: string } }>(`/datapacks/${packId}/restore`, { key, method: 'POST' })).status,
      400,
      'not in the trash any more',
    );
  });

  test('the default personal datapack cannot be deleted; a plain member cannot delete the organization datapack', async () => {
    const packs = (
      await api<{ datapacks: { id: string; scope: string; name: string }[] }>('/datapacks', { key: tenant.member.key })
    ).body.datapacks;
    const personal = packs.find((d) => d.scope === 'personal' && d.name === 'Personal')!;
    const refused = await api<{ error: { message: string } }>(`/datapacks/${personal.id}`, {
      key: tenant.member.key,
      method: 'DELETE',
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /cannot be deleted; delete its entries instead/);
    const org = packs.find((d) => d.scope === 'organization')!;
    assert.equal((await api(`/datapacks/${org.id}`, { key: tenant.member.key, method: 'DELETE' })).status, 403);
    assert.equal((await api(`/datapacks/${org.id}`, { key: tenant.outsider.key, method: 'DELETE' })).status, 404);
  });

  test('a datapack in the trash past the retention is purged with its entries and their history', async () => {
    const key = tenant.member.key;
    const created = await api<{ datapack: { id: string } }>('/datapacks', {
      key,
      method: 'POST',
      body: JSON.stringify({ name: 'Old project', scope: 'personal' }),
    });
    const packId = created.body.datapack.id;
    const entry = await save(key, {
      title: 'Old project notes',
      content: 'The old project used Makefiles.',
      datapack: packId,
    });
    await api(`/datapacks/${packId}`, { key, method: 'DELETE' });
    await later(8, async () => {
      assert.equal(
        (await api(`/datapacks/${packId}/restore`, { key, method: 'POST' })).status,
        404,
        'past the retention',
      );
      await server.cairn.trash.runNow();
    });
    assert.equal(await server.cairn.store.getTrashedDatapack(packId), undefined);
    assert.equal(await server.cairn.store.getEntry(entry.id), undefined);
    assert.deepEqual(await server.cairn.store.listEntryVersions(entry.id), []);
  });
});

describe('restore_entry over MCP (SDK client)', () => {
  let client: Client;
  before(async () => {
    client = await connectMcpClient(server.mcpUrl, tenant.member.key);
  });
  after(() => client?.close());

  test('get_entry with history shows where each version applied, and restore_entry brings old globs back', async () => {
    const { entry } = await callTool(client, 'save_entry', {
      kind: 'preference',
      title: 'Shell scripts strict',
      content: 'Start shell scripts with set -euo pipefail.',
      applies: { files: ['**/*.sh'] },
    });
    await callTool(client, 'update_entry', { id: entry.id, expectedVersion: 1, applies: { files: ['bin/*'] } });
    const read = await callTool(client, 'get_entry', { id: entry.id, includeHistory: true });
    assert.deepEqual(
      read.history.map((v: { applies?: { files: string[] } }) => v.applies?.files),
      [['**/*.sh'], ['bin/*']],
    );
    const back = await callTool(client, 'restore_entry', { id: entry.id, version: 1 });
    assert.deepEqual(back.entry.applies.files, ['**/*.sh']);
  });

  test('delete_entry, then restore_entry brings it back; with version it restores an earlier version of a live entry', async () => {
    const { entry } = await callTool(client, 'save_entry', {
      kind: 'preference',
      title: 'Editor font',
      content: 'I use a 14 pt monospace font.',
    });
    await callTool(client, 'delete_entry', { id: entry.id });
    const back = await callTool(client, 'restore_entry', { id: entry.id });
    assert.deepEqual([back.entry.version, back.restoredFrom, back.undeleted], [3, 1, true]);
    const found = await callTool(client, 'search', { query: 'monospace font' });
    assert.equal(found.results[0].entry.id, entry.id);

    await callTool(client, 'update_entry', {
      id: entry.id,
      expectedVersion: 3,
      content: 'I use a 16 pt monospace font.',
    });
    const earlier = await callTool(client, 'restore_entry', { id: entry.id, version: 1 });
    assert.deepEqual(
      [earlier.entry.version, earlier.entry.content, earlier.undeleted],
      [5, 'I use a 14 pt monospace font.', false],
    );
    const read = await callTool(client, 'get_entry', { id: entry.id, includeHistory: true });
    assert.deepEqual(
      read.history.map((v: { change: string; restoredFrom?: number }) => [v.change, v.restoredFrom]),
      [
        ['create', undefined],
        ['delete', undefined],
        ['restore', 1],
        ['update', undefined],
        ['restore', 1],
      ],
    );
  });

  test('errors say what to do', async () => {
    assert.match(
      await callToolError(client, 'restore_entry', { id: 'ent_unknown' }),
      /^not_found: No entry ent_unknown is visible to you/,
    );
    assert.match(await callToolError(client, 'restore_entry', { id: 'ent_\u0000' }), /NUL character/);
    const outsider = await connectMcpClient(server.mcpUrl, tenant.outsider.key);
    try {
      const { entry } = await callTool(client, 'save_entry', {
        title: 'Private plant',
        content: 'My cactus needs water monthly.',
      });
      await callTool(client, 'delete_entry', { id: entry.id });
      assert.match(await callToolError(outsider, 'restore_entry', { id: entry.id }), /^not_found/);
    } finally {
      await outsider.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
before(async () => ({ server, tenant } = await startTenantCairn()));
after(() => server?.close());

const api = (path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(`${server.baseUrl}/api/v1${path}`, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(init.key && { authorization: `Bearer ${init.key}` }),
      ...(init.headers as Record<string, string>),
    },
  });

describe('the JSON API is the same domain behind another door', () => {
  test('with an API key: save, search, read, update with a version check, delete', async () => {
    const key = tenant.member.key;
    const created = await api('/entries', {
      key,
      method: 'POST',
      body: JSON.stringify({
        kind: 'standard',
        title: 'Commit messages',
        content: 'Use the imperative mood in commit subjects.',
      }),
    });
    assert.equal(created.status, 201);
    const { entry } = (await created.json()) as { entry: { id: string; version: number } };
    const search = (await (await api('/search?q=imperative%20commit', { key })).json()) as {
      results: { entry: { id: string } }[];
    };
    assert.equal(search.results[0]!.entry.id, entry.id);
    const patched = await api(`/entries/${entry.id}`, {
      key,
      method: 'PATCH',
      body: JSON.stringify({ expectedVersion: 1, content: 'Imperative mood, 72 characters at most.' }),
    });
    assert.equal(patched.status, 200);
    const stale = await api(`/entries/${entry.id}`, {
      key,
      method: 'PATCH',
      body: JSON.stringify({ expectedVersion: 1, content: 'lost update' }),
    });
    assert.equal(stale.status, 409);
    assert.equal(((await stale.json()) as { error: { code: string } }).error.code, 'version_conflict');
    const history = (await (await api(`/entries/${entry.id}?history=true`, { key })).json()) as { history: unknown[] };
    assert.equal(history.history.length, 2);
    assert.equal((await api(`/entries/${entry.id}`, { key: tenant.outsider.key })).status, 404, 'outsiders get 404');
    assert.equal((await api(`/entries/${entry.id}?expectedVersion=2`, { key, method: 'DELETE' })).status, 200);
    assert.equal((await api(`/entries/${entry.id}`, { key })).status, 404);
  });

  test('search across every readable datapack, narrowed by kind and by tags', async () => {
    const key = tenant.member.key;
    const save = async (body: object) =>
      (
        (await (await api('/entries', { key, method: 'POST', body: JSON.stringify(body) })).json()) as {
          entry: { id: string };
        }
      ).entry.id;
    const { datapack: other } = (await (
      await api('/datapacks', { key, method: 'POST', body: JSON.stringify({ name: 'Second pack', scope: 'personal' }) })
    ).json()) as {
      datapack: { id: string };
    };
    const a = await save({
      kind: 'standard',
      title: 'Rollout canaries',
      content: 'Every rollout starts with a canary.',
      tags: ['Deploy', 'safety'],
    });
    const b = await save({
      kind: 'note',
      title: 'Rollout notes',
      content: 'The last rollout went fine.',
      tags: ['deploy'],
      datapack: other.id,
    });
    const c = await save({
      kind: 'decision',
      title: 'Rollout window',
      content: 'No rollout on Fridays.',
      tags: ['calendar'],
    });
    const ids = async (query: string) =>
      (
        (await (await api(`/search?q=rollout${query}`, { key })).json()) as { results: { entry: { id: string } }[] }
      ).results.map((r) => r.entry.id);
    assert.deepEqual(new Set(await ids('')), new Set([a, b, c]), 'both datapacks');
    assert.deepEqual(new Set(await ids('&tag=deploy')), new Set([a, b]), 'tags match whatever their case');
    assert.deepEqual(await ids('&tag=deploy&tag=safety'), [a], 'every tag must be carried');
    assert.deepEqual(await ids('&tag=deploy,safety'), [a]);
    assert.deepEqual(new Set(await ids('&kind=standard,decision')), new Set([a, c]));
    assert.deepEqual(await ids(`&tag=deploy&datapack=${other.id}`), [b]);
    assert.deepEqual(new Set(await ids('&scope=personal')), new Set([a, b, c]), 'all three are personal');
    assert.deepEqual(await ids('&scope=organization,team'), []);
    const memberId = (await server.cairn.store.findUserByEmail(tenant.member.email))!.id;
    assert.deepEqual(new Set(await ids(`&author=${memberId}`)), new Set([a, b, c]));
    assert.deepEqual(await ids('&author=someone-else'), []);
    assert.equal((await api('/search?q=rollout&scope=galaxy', { key })).status, 400);
    const bad = await api('/search?q=rollout&kind=recipe', { key });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /kinds/);
    assert.equal(
      (
        (await api('/search?q=rollout&tag=deploy', { key: tenant.outsider.key }).then((r) => r.json())) as {
          results: unknown[];
        }
      ).results.length,
      0,
      'an outsider finds none of it',
    );
  });

  test('datapacks are renamed and redescribed, deleted (out of every read) and restored whole', async () => {
    const key = tenant.member.key;
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> });
    const created = await json(
      await api('/datapacks', { key, method: 'POST', body: JSON.stringify({ name: 'Scratch', scope: 'personal' }) }),
    );
    const id = created.body.datapack.id as string;
    const entry = (
      await json(
        await api('/entries', {
          key,
          method: 'POST',
          body: JSON.stringify({
            datapack: id,
            title: 'Zeppelin hangar',
            content: 'The zeppelin hangar opens at six.',
          }),
        }),
      )
    ).body.entry;
    const renamed = await json(
      await api(`/datapacks/${id}`, {
        key,
        method: 'PATCH',
        body: JSON.stringify({
          name: 'Airships',
          description: 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB inside',
        }),
      }),
    );
    assert.equal(renamed.body.datapack.name, 'Airships');
    assert.match(renamed.body.datapack.description, /\[redacted:/, 'a secret in a description is not stored');
    assert.equal(
      (await api(`/datapacks/${id}`, { key, method: 'PATCH', body: JSON.stringify({ name: 'personal' }) })).status,
      409,
      'names stay unique per owner',
    );
    const personal = (await json(await api('/datapacks', { key }))).body.datapacks.find(
      (d: { name: string; scope: string }) => d.name === 'Personal' && d.scope === 'personal',
    );
    assert.equal(
      (await api(`/datapacks/${personal.id}`, { key, method: 'PATCH', body: JSON.stringify({ name: 'Mine' }) })).status,
      400,
    );
    assert.equal(
      (await api(`/datapacks/${personal.id}`, { key, method: 'DELETE' })).status,
      400,
      'the default datapack stays',
    );
    const org = (await json(await api('/datapacks', { key }))).body.datapacks.find(
      (d: { scope: string }) => d.scope === 'organization',
    );
    assert.equal(
      (await api(`/datapacks/${org.id}`, { key, method: 'DELETE' })).status,
      403,
      'a member cannot delete organization policies',
    );
    assert.equal(
      (await api(`/datapacks/${id}`, { key: tenant.outsider.key, method: 'DELETE' })).status,
      404,
      'a stranger learns nothing',
    );
    assert.equal(
      (await api(`/datapacks/${id}`, { key: tenant.outsider.key, method: 'PATCH', body: '{"name":"x"}' })).status,
      404,
    );

    assert.equal((await api(`/datapacks/${id}`, { key, method: 'DELETE' })).status, 200);
    assert.ok(!(await json(await api('/datapacks', { key }))).body.datapacks.some((d: { id: string }) => d.id === id));
    assert.equal((await api(`/entries/${entry.id}`, { key })).status, 404, 'its entries are out of reach');
    assert.ok(
      !(await json(await api('/search?q=zeppelin%20hangar', { key }))).body.results.some(
        (r: { entry: { id: string } }) => r.entry.id === entry.id,
      ),
    );
    assert.equal((await api(`/datapacks/${id}`, { key, method: 'DELETE' })).status, 404);
    const trash = (await json(await api('/trash', { key }))).body.datapacks;
    assert.deepEqual(
      trash.map((d: { id: string }) => d.id),
      [id],
    );
    assert.ok(Date.parse(trash[0].purgeAt) - Date.parse(trash[0].deletedAt) === 30 * 86_400_000);
    assert.deepEqual((await json(await api('/trash', { key: tenant.outsider.key }))).body.datapacks, []);
    assert.equal((await api(`/datapacks/${id}/restore`, { key: tenant.outsider.key, method: 'POST' })).status, 404);

    assert.equal((await api(`/datapacks/${id}/restore`, { key, method: 'POST' })).status, 200);
    assert.equal(
      (await json(await api('/search?q=zeppelin%20hangar', { key }))).body.results[0].entry.id,
      entry.id,
      'restored whole',
    );
    assert.equal(
      (await api(`/datapacks/${id}/restore`, { key, method: 'POST' })).status,
      400,
      'nothing to restore twice',
    );
  });

  test('errors are JSON with a code and a message that says what to do', async () => {
    const none = await api('/datapacks');
    assert.equal(none.status, 401);
    assert.match(((await none.json()) as { error: { message: string } }).error.message, /Sign in to the Cairn portal/);
    const bad = await api('/entries', { key: tenant.member.key, method: 'POST', body: '{not json' });
    assert.equal(bad.status, 400);
    const invalid = await api('/entries', {
      key: tenant.member.key,
      method: 'POST',
      body: JSON.stringify({ title: '' }),
    });
    assert.equal(invalid.status, 400);
    assert.match(((await invalid.json()) as { error: { message: string } }).error.message, /title/);
  });

  test('a portal session works, and cookie-authenticated writes need the portal origin (CSRF)', async () => {
    const origin = new URL(server.baseUrl).origin;
    const cookie = await signIn(server.baseUrl, tenant.owner.email);
    const packs = await api('/datapacks', { headers: { cookie } });
    assert.equal(packs.status, 200);
    assert.equal(((await packs.json()) as { datapacks: unknown[] }).datapacks.length, 2);
    const body = JSON.stringify({ name: 'From the portal' });
    assert.equal(
      (await api('/datapacks', { method: 'POST', headers: { cookie, origin: 'https://evil.example' }, body })).status,
      403,
    );
    const created = await api('/datapacks', { method: 'POST', headers: { cookie, origin }, body });
    assert.equal(created.status, 201);
    const { datapack } = (await created.json()) as { datapack: { id: string } };
    const one = (await (await api(`/datapacks/${datapack.id}`, { headers: { cookie } })).json()) as {
      datapack: { entryCount: number };
    };
    assert.equal(one.datapack.entryCount, 0);
    assert.equal((await api(`/datapacks/${datapack.id}`, { key: tenant.outsider.key })).status, 404);
    const saved = await api('/entries', {
      method: 'POST',
      headers: { cookie, origin },
      body: JSON.stringify({ datapack: datapack.id, title: 'From the browser', content: 'Saved through the portal.' }),
    });
    assert.equal(
      ((await saved.json()) as { entry: { createdClient: string } }).entry.createdClient,
      'cairn-portal',
      'provenance names the portal',
    );
  });
});

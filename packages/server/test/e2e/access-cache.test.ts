import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { openStore } from '../../src/runtime/open-store.js';
import { ACCESS_TABLES } from '../../src/store/access-tables.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool, callToolError, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

// Every request used to read its key, its memberships and its datapacks; now it reads the access
// epoch and keeps the rest until the epoch moves. Each change below is made through a second
// connection to the database (another instance, the CLI, an operator's SQL), never through the
// server under test, so only the epoch can tell it.
describe('a caller’s key, memberships and datapacks are kept until access changes, on any connection', () => {
  let server: TestCairn;
  let tenant: TestTenant;
  /** A second connection to the same database. */
  let other: KyselyStore;
  const reads = { key: 0, memberships: 0, user: 0, datapacks: 0 };

  before(async () => {
    server = await startTestCairn();
    tenant = await createTenant(server.cairn);
    other = await openStore(server.cairn.config);
    const store = server.cairn.store;
    const count = <K extends 'findApiKeyByHash' | 'getMemberships' | 'getUser' | 'findDatapacks'>(
      method: K,
      field: keyof typeof reads,
    ) => {
      const original = store[method].bind(store) as (...args: unknown[]) => unknown;
      (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        reads[field]++;
        return original(...args);
      };
    };
    count('findApiKeyByHash', 'key');
    count('getMemberships', 'memberships');
    count('getUser', 'user');
    count('findDatapacks', 'datapacks');
  });
  after(async () => {
    await other?.close();
    await server?.close();
  });

  const readsDuring = async (work: () => Promise<unknown>) => {
    const start = { ...reads };
    await work();
    return {
      key: reads.key - start.key,
      memberships: reads.memberships - start.memberships,
      user: reads.user - start.user,
      datapacks: reads.datapacks - start.datapacks,
    };
  };
  const withClient = async <T>(key: string, work: (client: Client) => Promise<T>): Promise<T> => {
    const client = await connectMcpClient(server.mcpUrl, key);
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  };
  const packNames = (client: Client) =>
    callTool(client, 'list_datapacks').then((r) => r.datapacks.map((d: { name: string }) => d.name) as string[]);

  test('a repeated search reads none of them again, while the first reads each once', async () => {
    await withClient(tenant.member.key, async (client) => {
      await callTool(client, 'save_entry', {
        kind: 'preference',
        title: 'Rollouts',
        content: 'Roll out behind a canary first.',
      });
      const epoch = await server.cairn.store.accessEpoch();
      await other.db
        .updateTable('api_key')
        .set({ name: 'member key, renamed' })
        .where('user_id', '=', tenant.member.id)
        .execute();
      assert.ok((await server.cairn.store.accessEpoch()) > epoch, 'a change made elsewhere moves the epoch');
      assert.deepEqual(await readsDuring(() => callTool(client, 'search', { query: 'canary rollout' })), {
        key: 1,
        memberships: 1,
        user: 1,
        datapacks: 1,
      });
      assert.deepEqual(await readsDuring(() => callTool(client, 'search', { query: 'canary rollout' })), {
        key: 0,
        memberships: 0,
        user: 0,
        datapacks: 0,
      });
      assert.deepEqual(await readsDuring(() => callTool(client, 'list_datapacks')), {
        key: 0,
        memberships: 0,
        user: 0,
        datapacks: 0,
      });
      // The renamed key is what provenance names now: the record was read again.
      const saved = await callTool(client, 'save_entry', {
        kind: 'note',
        title: 'Provenance',
        content: 'Which key wrote this?',
      });
      assert.match(saved.entry.createdClient, /member key, renamed/);
    });
  });

  test('a key revoked on another connection is refused at the next request', async () => {
    await withClient(tenant.owner.key, (client) => callTool(client, 'list_datapacks'));
    await other.db
      .updateTable('api_key')
      .set({ revoked_at: new Date().toISOString() })
      .where('user_id', '=', tenant.owner.id)
      .execute();
    const response = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tenant.owner.key}`,
        'User-Agent': INSTALLER_USER_AGENT,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_datapacks', arguments: {} },
      }),
    });
    assert.equal(response.status, 401);
    assert.match(await response.text(), /not valid/);
  });

  test('a datapack renamed on another connection is named anew in the next search', async () => {
    await withClient(tenant.outsider.key, async (client) => {
      await callTool(client, 'save_entry', {
        kind: 'preference',
        title: 'Editor',
        content: 'Use tabs for indentation in Makefiles.',
      });
      const first = await callTool(client, 'search', { query: 'Makefiles indentation' });
      const pack = first.results[0].datapack;
      await other.db.updateTable('datapack').set({ name: 'Renamed elsewhere' }).where('id', '=', pack.id).execute();
      const second = await callTool(client, 'search', { query: 'Makefiles indentation' });
      assert.equal(second.results[0].datapack.name, 'Renamed elsewhere');
    });
  });

  test('a user renamed on another connection is named anew by the next list_datapacks', async () => {
    const fresh = await createTenant(server.cairn);
    await withClient(fresh.member.key, async (client) => {
      assert.equal((await callTool(client, 'list_datapacks')).you.name, 'member');
      await other.db.updateTable('user').set({ name: 'Renamed elsewhere' }).where('id', '=', fresh.member.id).execute();
      const after = await callTool(client, 'list_datapacks');
      assert.equal(after.you.name, 'Renamed elsewhere');
    });
  });

  test('a role lowered on another connection stops organization writes at the next call', async () => {
    const fresh = await createTenant(server.cairn);
    await withClient(fresh.owner.key, async (client) => {
      const orgPack = (await callTool(client, 'list_datapacks')).datapacks.find(
        (d: { scope: string }) => d.scope === 'organization',
      );
      await callTool(client, 'save_entry', {
        datapack: orgPack.id,
        kind: 'policy',
        title: 'Reviews',
        content: 'Two reviewers for every change.',
      });
      await other.db.updateTable('member').set({ role: 'member' }).where('userId', '=', fresh.owner.id).execute();
      const refused = await callToolError(client, 'save_entry', {
        datapack: orgPack.id,
        kind: 'policy',
        title: 'Reviews 2',
        content: 'One reviewer is enough.',
      });
      assert.match(refused, /Only organization admins/);
    });
  });

  test('a membership removed on another connection takes the organization’s datapacks out of the next call', async () => {
    const fresh = await createTenant(server.cairn);
    await withClient(fresh.member.key, async (client) => {
      assert.ok((await packNames(client)).includes(fresh.orgName));
      await other.db.deleteFrom('member').where('userId', '=', fresh.member.id).execute();
      assert.deepEqual(await packNames(client), ['Personal']);
    });
  });

  test('key use, entry writes and searches leave the epoch alone; a new key moves it', async () => {
    const { store, keys } = server.cairn;
    const fresh = await createTenant(server.cairn);
    const epoch = await store.accessEpoch();
    await withClient(fresh.member.key, async (client) => {
      const saved = await callTool(client, 'save_entry', {
        kind: 'note',
        title: 'Epoch',
        content: 'Entry writes are not access changes.',
      });
      await callTool(client, 'update_entry', {
        id: saved.entry.id,
        expectedVersion: 1,
        content: 'Still not an access change.',
      });
      await callTool(client, 'search', { query: 'access change' });
      await callTool(client, 'delete_entry', { id: saved.entry.id });
    });
    await keys.flush();
    assert.equal(await store.accessEpoch(), epoch);
    const { createApiKey } = await import('../../src/domain/api-keys.js');
    await createApiKey(server.cairn.domain, fresh.member.id, 'another');
    assert.ok((await store.accessEpoch()) > epoch);
  });

  test('an epoch row deleted by hand is put back above every count, and changes count again', async () => {
    const fresh = await createTenant(server.cairn);
    await withClient(fresh.member.key, async (client) => {
      await callTool(client, 'list_datapacks');
      const before = await server.cairn.store.accessEpoch();
      await other.db.deleteFrom('access_epoch').execute();
      // The next request reads no row: it must neither fail nor trust what it holds.
      assert.ok((await packNames(client)).includes(fresh.orgName));
      const restored = await server.cairn.store.accessEpoch();
      assert.ok(restored > before + 1_000_000, `put back at ${restored}, far above ${before}`);
      await other.db.deleteFrom('member').where('userId', '=', fresh.member.id).execute();
      assert.ok((await server.cairn.store.accessEpoch()) > restored, 'the triggers count on the restored row');
      assert.deepEqual(await packNames(client), ['Personal']);
    });
  });

  test('the epoch’s triggers watch every column of keys and datapacks but usage and entry counts', async () => {
    const tables = await server.cairn.store.db.introspection.getTables();
    const notAccess: Record<string, string[]> = {
      api_key: ['client_name', 'last_used_at', 'last_used_client'],
      datapack: ['live_entries', 'entry_revision'],
    };
    for (const [table, watched] of ACCESS_TABLES) {
      if (!watched) continue;
      const columns = tables.find((t) => t.name === table)!.columns.map((c) => c.name);
      assert.deepEqual(
        columns.filter((c) => !watched.includes(c)).sort(),
        notAccess[table]!.sort(),
        `${table}: a new column must be added to ACCESS_TABLES, or to this list if changing it cannot change anyone's access`,
      );
    }
  });
});

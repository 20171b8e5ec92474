import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTestDatabase, postgresTestUrl } from '../../src/testing/postgres.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const target = postgresTestUrl();
if ('skip' in target) console.log(`# Multi-instance PostgreSQL test skipped: ${target.skip}`);

describe('many instances share one PostgreSQL database', { skip: 'skip' in target ? target.skip : undefined }, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestCairn;
  let b: TestCairn;
  let tenant: TestTenant;

  before(async () => {
    database = await createTestDatabase((target as { url: string }).url);
    // Started together: both race through migrations and the shared auth secret.
    [a, b] = await Promise.all([
      startTestCairn({ databaseUrl: database.url }),
      startTestCairn({ databaseUrl: database.url }),
    ]);
    tenant = await createTenant(a.cairn);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  test('a key made on one instance works on the other, and what one saves the other finds', async () => {
    const viaA = await connectMcpClient(a.mcpUrl, tenant.member.key);
    const viaB = await connectMcpClient(b.mcpUrl, tenant.member.key);
    try {
      const saved = await callTool(viaA, 'save_entry', {
        kind: 'preference',
        title: 'Test runner',
        content: 'Prefer node:test over jest for new packages.',
      });
      const found = await callTool(viaB, 'search', { query: 'jest node:test' });
      assert.equal(found.results[0].entry.id, saved.entry.id);
      const updated = await callTool(viaB, 'update_entry', {
        id: saved.entry.id,
        expectedVersion: 1,
        content: 'Prefer node:test for new packages.',
      });
      const read = await callTool(viaA, 'get_entry', { id: saved.entry.id });
      assert.equal(read.entry.version, updated.entry.version);
      const packs = await callTool(viaB, 'list_datapacks');
      assert.equal(packs.datapacks.find((d: { scope: string }) => d.scope === 'personal').entryCount, 1);
    } finally {
      await viaA.close();
      await viaB.close();
    }
  });

  test("a write on one instance is seen by the next search on another that holds the writer's pool", async () => {
    const viaA = await connectMcpClient(a.mcpUrl, tenant.owner.key);
    const viaB = await connectMcpClient(b.mcpUrl, tenant.owner.key);
    try {
      await callTool(viaA, 'save_entry', {
        kind: 'decision',
        title: 'Build tool',
        content: 'Packages are bundled with esbuild.',
      });
      // B reads the pool now, so the writes below must bring its cached pool up to date.
      assert.equal(
        (await callTool(viaB, 'search', { query: 'bundled with esbuild' })).results[0].entry.title,
        'Build tool',
      );
      const saved = await callTool(viaA, 'save_entry', {
        kind: 'decision',
        title: 'Container images',
        content: 'Images are built with distroless bases.',
      });
      assert.equal(
        (await callTool(viaB, 'search', { query: 'distroless container images' })).results[0].entry.id,
        saved.entry.id,
      );
      await callTool(viaA, 'update_entry', {
        id: saved.entry.id,
        expectedVersion: 1,
        content: 'Images are built on Alpine bases.',
      });
      const afterUpdate = await callTool(viaB, 'search', { query: 'alpine images' });
      assert.equal(afterUpdate.results[0].entry.id, saved.entry.id);
      assert.match(afterUpdate.results[0].entry.content, /Alpine/);
      await callTool(viaA, 'delete_entry', { id: saved.entry.id });
      const afterDelete = await callTool(viaB, 'search', { query: 'alpine images' });
      assert.ok(
        !afterDelete.results.some((r: { entry: { id: string } }) => r.entry.id === saved.entry.id),
        'the deleted entry is gone on B',
      );
    } finally {
      await viaA.close();
      await viaB.close();
    }
  });

  test('a key revoked through one instance stops working on the other at once', async () => {
    const { createApiKey, revokeApiKey } = await import('../../src/domain/api-keys.js');
    const { key, record } = await createApiKey(a.cairn.domain, tenant.owner.id, 'shared');
    const client = await connectMcpClient(b.mcpUrl, key);
    await client.close();
    await revokeApiKey(a.cairn.domain, record.id);
    await assert.rejects(() => connectMcpClient(b.mcpUrl, key), /401|not valid/);
  });
  test('the name a legacy client gave in initialize on one instance names its calls and its key on the other', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const { createApiKey } = await import('../../src/domain/api-keys.js');
    const { key, record } = await createApiKey(a.cairn.domain, tenant.member.id, 'windsurf on laptop');
    const since = new Date(Date.now() - 1000).toISOString();
    // initialize reaches A only; every call after it goes to B, as a load balancer may send them.
    const windsurf = new Client({ name: 'windsurf', title: 'Windsurf', version: '1.12.4' });
    await windsurf.connect(
      new StreamableHTTPClientTransport(new URL(a.mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${key}`, 'User-Agent': 'cairn-mcp-installer/1.0' } },
      }),
    );
    await windsurf.close();
    const bare = await fetch(b.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'user-agent': 'cairn-mcp-installer/1.0',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'save_entry',
          arguments: { kind: 'note', title: 'Via B', content: 'Saved on the instance that never saw initialize.' },
        },
      }),
    });
    const saved = (await bare.json()) as { result: { structuredContent: { entry: { createdClient: string } } } };
    assert.equal(saved.result.structuredContent.entry.createdClient, 'Windsurf 1.12.4 · key “windsurf on laptop”');
    await b.cairn.keys.flush();
    await a.cairn.keys.flush();
    assert.equal(
      (await b.cairn.store.getApiKey(record.id))?.lastUsedClient,
      'Windsurf 1.12.4',
      'last used by, as both instances wrote it',
    );
    // The Connect dialog asking instance B names the client too.
    const origin = new URL(b.baseUrl).origin;
    const signIn = await fetch(`${b.baseUrl}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email: tenant.member.email, password: 'correct horse battery' }),
    });
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const status = (await (
      await fetch(`${b.baseUrl}/api/v1/keys/connected?since=${encodeURIComponent(since)}`, { headers: { cookie } })
    ).json()) as { connection: { client: string } | null };
    assert.equal(status.connection?.client, 'Windsurf 1.12.4');
  });
});

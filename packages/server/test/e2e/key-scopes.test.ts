import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { displayParts, generateApiKey, hashApiKey } from '../../src/auth/api-keys/key-format.js';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { READ_ONLY_KEY_MESSAGE } from '../../src/domain/key-scope.js';
import { JSONRPC_CODES } from '../../src/errors/jsonrpc-codes.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const UA = 'cairn-mcp-installer/1.0';
const DAY_MS = 24 * 60 * 60 * 1000;

interface Answer {
  status: number;
  body: string;
  wwwAuthenticate: string | null;
}

forEachBackend(({ name: backend, skip, options }) => {
  describe(`API key scopes and expiry (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    let readKey: string;
    let readClient: Client;
    let sharedEntryId: string;

    const api = async (path: string, init: RequestInit & { key?: string } = {}): Promise<Answer> => {
      const answer = await fetch(`${server.baseUrl}/api/v1${path}`, {
        ...init,
        headers: {
          'content-type': 'application/json',
          ...(init.key && { authorization: `Bearer ${init.key}` }),
          ...(init.headers as Record<string, string>),
        },
      });
      return {
        status: answer.status,
        body: await answer.text(),
        wwwAuthenticate: answer.headers.get('www-authenticate'),
      };
    };
    const mcp = async (
      key: string,
      body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    ): Promise<Answer> => {
      const answer = await fetch(server.mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          authorization: `Bearer ${key}`,
          'user-agent': UA,
        },
        body: JSON.stringify(body),
      });
      return {
        status: answer.status,
        body: await answer.text(),
        wwwAuthenticate: answer.headers.get('www-authenticate'),
      };
    };
    /** Every entry the member can see, by title: what a refused write must leave untouched. */
    const visibleEntries = async () => {
      const { datapacks } = JSON.parse((await api('/datapacks', { key: tenant.member.key })).body) as {
        datapacks: { id: string }[];
      };
      const all = [];
      for (const d of datapacks)
        all.push(
          ...(
            JSON.parse((await api(`/datapacks/${d.id}/entries?limit=200`, { key: tenant.member.key })).body) as {
              entries: { id: string; title: string; version: number }[];
            }
          ).entries,
        );
      return all.map((e) => `${e.id}:${e.title}:v${e.version}`).sort();
    };

    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
      readKey = (await createApiKey(server.cairn.domain, tenant.member.id, 'reader', { scope: 'read' })).key;
      const saved = JSON.parse(
        (
          await api('/entries', {
            key: tenant.member.key,
            method: 'POST',
            body: JSON.stringify({
              kind: 'preference',
              title: 'Package manager',
              content: 'Always use pnpm for JavaScript projects.',
            }),
          })
        ).body,
      ) as { entry: { id: string } };
      sharedEntryId = saved.entry.id;
      readClient = await connectMcpClient(server.mcpUrl, readKey);
    });
    after(async () => {
      await readClient?.close();
      await server?.close();
    });

    test('a read key lists, searches, gets guidance and reads entries over MCP', async () => {
      const { datapacks } = await callTool<{ datapacks: unknown[] }>(readClient, 'list_datapacks');
      assert.ok(datapacks.length > 0);
      const found = await callTool<{ results: { entry: { id: string } }[] }>(readClient, 'search', { query: 'pnpm' });
      assert.deepEqual(
        found.results.map((r) => r.entry.id),
        [sharedEntryId],
      );
      await callTool(readClient, 'get_guidance', { task: 'set up a JavaScript project' });
      assert.equal(
        (await callTool<{ entry: { id: string } }>(readClient, 'get_entry', { id: sharedEntryId })).entry.id,
        sharedEntryId,
      );
    });

    test('a read key calling a write tool gets a JSON-RPC error that says how to get a read-write key, and nothing changes', async () => {
      const before = await visibleEntries();
      const calls: [string, Record<string, unknown>][] = [
        ['save_entry', { kind: 'note', title: 'Written by a reader', content: 'This must never be stored.' }],
        ['update_entry', { id: sharedEntryId, expectedVersion: 1, content: 'Changed by a reader.' }],
        ['delete_entry', { id: sharedEntryId }],
        ['restore_entry', { id: sharedEntryId, version: 1 }],
        ['create_datapack', { name: 'Reader pack', scope: 'personal' }],
      ];
      for (const [name, args] of calls) {
        await assert.rejects(readClient.callTool({ name, arguments: args }), (error: Error & { code?: number }) => {
          assert.equal(error.code, JSONRPC_CODES.readOnlyKey, `${name}: ${error.message}`);
          assert.match(error.message, /read-only/);
          assert.match(error.message, /Settings > API Keys/);
          assert.match(error.message, /cairn keys create .*--scope read-write/);
          return true;
        });
      }
      // On the wire: a JSON-RPC error object, not a result with isError.
      const raw = await mcp(readKey, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'save_entry',
          arguments: { kind: 'note', title: 'Raw reader write', content: 'Never stored.' },
        },
      });
      const message = JSON.parse(
        raw.body
          .replace(/^(event:.*\n)?data: /m, '')
          .trim()
          .split('\n')[0]!,
      ) as { id: number; result?: unknown; error?: { code: number; message: string } };
      assert.equal(raw.status, 200);
      assert.equal(message.result, undefined, raw.body);
      assert.deepEqual(
        [message.id, message.error?.code, message.error?.message],
        [7, JSONRPC_CODES.readOnlyKey, READ_ONLY_KEY_MESSAGE],
      );
      assert.deepEqual(await visibleEntries(), before, 'no entry was created, changed or deleted');
      const packs = JSON.parse((await api('/datapacks', { key: tenant.member.key })).body) as {
        datapacks: { name: string }[];
      };
      assert.ok(!packs.datapacks.some((d) => d.name === 'Reader pack'), 'no datapack was created');
    });

    test('write tools stay listed for a read key, and the initialize instructions say the key is read-only', async () => {
      const { tools } = await readClient.listTools();
      assert.ok(tools.some((t) => t.name === 'save_entry'));
      assert.match(readClient.getInstructions() ?? '', /read-only Cairn API key/);
      const writer = await connectMcpClient(server.mcpUrl, tenant.member.key);
      try {
        assert.doesNotMatch(writer.getInstructions() ?? '', /read-only/);
      } finally {
        await writer.close();
      }
    });

    test('a read key gets 403 with the same message on every JSON API write, and nothing is stored', async () => {
      assert.equal((await api('/datapacks', { key: readKey })).status, 200);
      assert.equal((await api('/search?q=pnpm', { key: readKey })).status, 200);
      assert.equal((await api(`/entries/${sharedEntryId}`, { key: readKey })).status, 200);
      assert.equal((await api('/guidance?task=build', { key: readKey })).status, 200);
      const before = await visibleEntries();
      const writes: [string, string, unknown][] = [
        ['POST', '/entries', { kind: 'note', title: 'Reader via API', content: 'Never stored.' }],
        ['PATCH', `/entries/${sharedEntryId}`, { expectedVersion: 1, content: 'Changed by a reader.' }],
        ['DELETE', `/entries/${sharedEntryId}`, undefined],
        ['POST', '/datapacks', { name: 'Reader API pack', scope: 'personal' }],
        [
          'POST',
          '/capture',
          {
            turns: [
              { id: 't-reader-1', role: 'user', text: 'hello', client: 'claude-code', at: new Date().toISOString() },
            ],
          },
        ],
      ];
      for (const [method, path, body] of writes) {
        const answer = await api(path, {
          key: readKey,
          method,
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        assert.equal(answer.status, 403, `${method} ${path}: ${answer.body}`);
        assert.deepEqual(JSON.parse(answer.body), {
          error: { code: 'forbidden', message: READ_ONLY_KEY_MESSAGE, details: { reason: 'read_only_key' } },
        });
      }
      assert.deepEqual(await visibleEntries(), before);
      const packs = JSON.parse((await api('/datapacks', { key: tenant.member.key })).body) as {
        datapacks: { name: string }[];
      };
      assert.ok(
        !packs.datapacks.some((d) => d.name === 'Reader API pack' || d.name === 'Conversations'),
        'no datapack was created, not even by capture',
      );
      // A setup code is traded for a read-write key: a read key must not reach it (that would widen its own scope).
      const code = await api('/setup-codes', { key: readKey, method: 'POST' });
      assert.equal(code.status, 403, code.body);
      assert.doesNotMatch(code.body, /cairn_stp_/);
    });

    test('a read-write key still writes through both doors', async () => {
      const { key } = await createApiKey(server.cairn.domain, tenant.member.id, 'writer', { scope: 'read-write' });
      assert.equal(
        (
          await api('/entries', {
            key,
            method: 'POST',
            body: JSON.stringify({ kind: 'note', title: 'Writer via API', content: 'Stored by a read-write key.' }),
          })
        ).status,
        201,
      );
      const client = await connectMcpClient(server.mcpUrl, key);
      try {
        assert.equal(
          (
            await callTool<{ status: string }>(client, 'save_entry', {
              kind: 'note',
              title: 'Writer via MCP',
              content: 'Stored through MCP by a read-write key.',
            })
          ).status,
          'created',
        );
      } finally {
        await client.close();
      }
    });

    test('a key that expires is refused from that moment, exactly like a revoked key, on /mcp and /api/v1', async () => {
      const { key: revoked, record: revokedRecord } = await createApiKey(
        server.cairn.domain,
        tenant.member.id,
        'to revoke',
      );
      await revokeApiKey(server.cairn.domain, revokedRecord.id);
      const { key: expiring, record } = await createApiKey(server.cairn.domain, tenant.member.id, 'expiring', {
        expiresInDays: 1,
      });
      assert.equal(Date.parse(record.expiresAt!) - Date.parse(record.createdAt), DAY_MS);
      assert.equal((await mcp(expiring)).status, 200, 'works before it expires');
      assert.equal((await api('/datapacks', { key: expiring })).status, 200);

      const realNow = server.cairn.domain.now;
      try {
        server.cairn.domain.now = () => new Date(Date.parse(record.expiresAt!) - 1).toISOString();
        assert.equal((await mcp(expiring)).status, 200, 'still works the millisecond before');
        server.cairn.domain.now = () => record.expiresAt!;
        const expiredMcp = await mcp(expiring);
        const revokedMcp = await mcp(revoked);
        assert.equal(expiredMcp.status, 401);
        assert.deepEqual(expiredMcp, revokedMcp, 'same status, body and WWW-Authenticate as a revoked key');
        const expiredApi = await api('/datapacks', { key: expiring });
        assert.equal(expiredApi.status, 401);
        assert.deepEqual(expiredApi, await api('/datapacks', { key: revoked }));
        assert.deepEqual(
          await api('/entries', {
            key: expiring,
            method: 'POST',
            body: JSON.stringify({ kind: 'note', title: 'After expiry', content: 'Never stored.' }),
          }),
          await api('/entries', {
            key: revoked,
            method: 'POST',
            body: JSON.stringify({ kind: 'note', title: 'After expiry', content: 'Never stored.' }),
          }),
        );
      } finally {
        server.cairn.domain.now = realNow;
      }
      assert.equal((await mcp(expiring)).status, 200, 'the clock, not a remembered verdict, decides');
    });

    test('a key stored with a past expiry is refused at once, like a revoked key', async () => {
      const key = generateApiKey();
      const now = new Date();
      await server.cairn.store.insertApiKey(
        {
          id: server.cairn.domain.newId('key'),
          userId: tenant.member.id,
          name: 'already expired',
          ...displayParts(key),
          scope: 'read-write',
          createdAt: new Date(now.getTime() - 2 * DAY_MS).toISOString(),
          expiresAt: new Date(now.getTime() - 1000).toISOString(),
          revokedAt: null,
          lastUsedAt: null,
          lastUsedClient: null,
        },
        hashApiKey(key),
      );
      const { key: revoked, record } = await createApiKey(server.cairn.domain, tenant.member.id, 'revoked');
      await revokeApiKey(server.cairn.domain, record.id);
      const answer = await mcp(key);
      assert.equal(answer.status, 401);
      assert.deepEqual(answer, await mcp(revoked));
      assert.deepEqual(await api('/search?q=pnpm', { key }), await api('/search?q=pnpm', { key: revoked }));
    });

    test('the portal creates scoped, expiring keys (POST /api/v1/keys) and lists their scope and expiry', async () => {
      const cookie = await signIn(server.baseUrl, tenant.owner.email);
      const session = { cookie, origin: new URL(server.baseUrl).origin };
      const create = (body: unknown) => api('/keys', { method: 'POST', headers: session, body: JSON.stringify(body) });
      const created = await create({ name: 'CI reader', scope: 'read', expiresInDays: 30 });
      assert.equal(created.status, 201, created.body);
      const { key, record } = JSON.parse(created.body) as {
        key: string;
        record: { id: string; scope: string; expiresAt: string; createdAt: string };
      };
      assert.equal(record.scope, 'read');
      assert.equal(Date.parse(record.expiresAt) - Date.parse(record.createdAt), 30 * DAY_MS);
      const day = new Date(Date.now() + 365 * DAY_MS).toISOString().slice(0, 10);
      const dated = JSON.parse((await create({ name: 'Dated', expiresAt: day })).body) as {
        record: { scope: string; expiresAt: string };
      };
      assert.deepEqual(
        [dated.record.scope, dated.record.expiresAt],
        ['read-write', `${day}T23:59:59.999Z`],
        'a date means through that day (UTC)',
      );
      const listed = JSON.parse((await api('/keys', { headers: session })).body) as {
        keys: { id: string; scope: string; expiresAt: string | null; name: string }[];
      };
      const mine = listed.keys.find((k) => k.id === record.id)!;
      assert.deepEqual([mine.scope, mine.expiresAt], ['read', record.expiresAt]);
      assert.ok(
        listed.keys.some((k) => k.name === 'owner key' && k.scope === 'read-write' && k.expiresAt === null),
        'default keys are read-write without expiry',
      );
      assert.equal(
        (
          await api('/entries', {
            key,
            method: 'POST',
            body: JSON.stringify({ kind: 'note', title: 'x', content: 'y' }),
          })
        ).status,
        403,
        'the new key is read-only',
      );

      for (const [body, why] of [
        [{ name: 'Bad', scope: 'admin' }, /scope must be "read".*"read-write"/],
        [{ name: 'Bad', expiresInDays: 0 }, /whole number of days from 1 to 3650/],
        [{ name: 'Bad', expiresInDays: '30' }, /whole number of days/],
        [{ name: 'Bad', expiresAt: '2020-01-01' }, /not in the future/],
        [{ name: 'Bad', expiresAt: 'next tuesday' }, /date such as 2027-01-31/],
        [{ name: 'Bad', expiresAt: '2099-01-01', expiresInDays: 30 }, /either expiresAt or expiresInDays/],
      ] as const) {
        const answer = await create(body);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.match((JSON.parse(answer.body) as { error: { message: string } }).error.message, why);
      }
      assert.ok(
        !(JSON.parse((await api('/keys', { headers: session })).body) as { keys: { name: string }[] }).keys.some(
          (k) => k.name === 'Bad',
        ),
        'a refused key is not half-made',
      );
    });
  });
});

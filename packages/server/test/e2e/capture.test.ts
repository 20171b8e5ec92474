import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { countRows } from '../../src/testing/count-rows.js';
import { callTool, callToolError, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;

before(async () => {
  server = await startTestCairn({ env: { CAIRN_CAPTURE_TURNS_PER_MINUTE: '30' } });
  tenant = await createTenant(server.cairn);
});
after(() => server?.close());

const capture = (key: string, body: unknown) =>
  fetch(`${server.baseUrl}/api/v1/capture`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'cairn-capture/1.0' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
/** The server answers 413 before the upload ends; fetch reports that as a reset, so read the status raw. */
function rawStatus(key: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.baseUrl}/api/v1/capture`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    req.end(body);
  });
}

const turn = (id: string, role: 'user' | 'assistant', text: string) => ({
  id,
  role,
  text,
  client: 'claude-code',
  sessionId: 'sess-1',
  project: 'billing',
  at: new Date().toISOString(),
});

describe('POST /api/v1/capture', () => {
  test('turns land in the Conversations datapack, searchable through MCP, and a resend is a duplicate', async () => {
    const turns = [
      turn('t-1', 'user', 'How do we rotate the billing database credentials?'),
      turn('t-2', 'assistant', 'Rotate them through the vault runbook, then restart the billing workers.'),
    ];
    const first = await (await capture(tenant.member.key, { turns })).json();
    assert.deepEqual({ ...first, entries: undefined }, { stored: 2, duplicates: 0, redacted: [], entries: undefined });
    const resent = await (await capture(tenant.member.key, { turns })).json();
    assert.deepEqual({ ...resent, entries: undefined }, { stored: 0, duplicates: 2, redacted: [], entries: undefined });
    assert.deepEqual(
      resent.entries,
      first.entries.map((e: object) => ({ ...e, duplicate: true })),
    );
    const client = await connectMcpClient(server.mcpUrl, tenant.member.key);
    const { results } = await callTool(client, 'search', { query: 'rotate billing credentials vault' });
    const packs = await callTool(client, 'list_datapacks');
    await client.close();
    assert.ok(results.length >= 2);
    assert.equal(results[0].datapack.name, 'Conversations');
    assert.ok(results[0].entry.tags.includes('session:sess-1') && results[0].entry.tags.includes('project:billing'));
    assert.equal(packs.datapacks.find((d: { name: string }) => d.name === 'Conversations').entryCount, 2);
    assert.equal(
      results.filter((r: { entry: { kind: string } }) => r.entry.kind === 'conversation').length,
      results.length,
    );
  });

  test('each turn comes back with its entry id; a speaker is kept; a named datapack receives the turns', async () => {
    const client = await connectMcpClient(server.mcpUrl, tenant.member.key);
    try {
      const { datapack } = await callTool(client, 'create_datapack', { name: 'Imported chats', scope: 'personal' });
      const turns = [
        {
          ...turn('sp-1', 'user', 'Ada: What have you been researching lately?'),
          speaker: 'Ada',
          sessionId: 'chat-7',
          at: '2026-03-01T10:00:00.000Z',
        },
        {
          ...turn('sp-2', 'assistant', 'Grace: Compilers, mostly.'),
          speaker: 'Grace',
          sessionId: 'chat-7',
          at: '2026-03-01T10:00:05.000Z',
        },
      ];
      const answer = await (await capture(tenant.member.key, { turns, datapack: 'Imported chats' })).json();
      assert.equal(answer.stored, 2);
      assert.deepEqual(
        answer.entries.map((e: { id: string; duplicate: boolean }) => [e.id, e.duplicate]),
        [
          ['sp-1', false],
          ['sp-2', false],
        ],
      );
      const again = await (await capture(tenant.member.key, { turns, datapack: 'Imported chats' })).json();
      assert.deepEqual(
        again.entries,
        answer.entries.map((e: object) => ({ ...e, duplicate: true })),
        'a resend names the entries stored the first time',
      );
      const stored = await callTool(client, 'get_entry', { id: answer.entries[1].entryId });
      assert.equal(stored.entry.datapackId, datapack.id);
      assert.equal(stored.entry.content, 'Grace: Compilers, mostly.');
      const rows = await server.cairn.store.db
        .selectFrom('capture_turn')
        .select(['session_id', 'speaker', 'role'])
        .where('entry_id', '=', answer.entries[1].entryId)
        .execute();
      assert.deepEqual(rows, [{ session_id: 'chat-7', speaker: 'Grace', role: 'assistant' }]);
      // The answer is found through the question before it, which names the topic.
      const { results } = await callTool(client, 'search', {
        query: 'What has Grace been researching?',
        datapack: datapack.id,
        limit: 2,
      });
      assert.ok(results.some((r: { entry: { id: string } }) => r.entry.id === answer.entries[1].entryId));
      // The turns around a hit, the same through MCP and the JSON API; nothing of another session.
      await capture(tenant.member.key, {
        turns: [{ ...turn('sp-3', 'user', 'Ada: Unrelated, other chat.'), speaker: 'Ada', sessionId: 'chat-8' }],
        datapack: datapack.id,
      });
      const around = await callTool(client, 'get_entry', { id: answer.entries[1].entryId, around: 3 });
      assert.deepEqual(
        around.conversation.map((t: { entry: { id: string }; speaker: string; role: string }) => [
          t.entry.id,
          t.speaker,
          t.role,
        ]),
        [
          [answer.entries[0].entryId, 'Ada', 'user'],
          [answer.entries[1].entryId, 'Grace', 'assistant'],
        ],
      );
      const viaApi = await (
        await fetch(`${server.baseUrl}/api/v1/entries/${answer.entries[0].entryId}?around=1`, {
          headers: { authorization: `Bearer ${tenant.member.key}`, 'user-agent': 'cairn-mcp-installer/1.0' },
        })
      ).json();
      assert.deepEqual(viaApi.conversation, around.conversation);
      assert.equal(
        (await callTool(client, 'get_entry', { id: answer.entries[1].entryId })).conversation,
        undefined,
        'only when asked',
      );
      const stranger = await connectMcpClient(server.mcpUrl, tenant.outsider.key);
      assert.match(
        await callToolError(stranger, 'get_entry', { id: answer.entries[1].entryId, around: 3 }),
        /^not_found/,
      );
      await stranger.close();
      assert.match(await callToolError(client, 'get_entry', { id: answer.entries[1].entryId, around: 11 }), /around/);
    } finally {
      await client.close();
    }
  });

  test('a datapack the caller cannot write, or a bad speaker, is refused and nothing is stored', async () => {
    const count = () => countRows(server.cairn.store.db, 'entry');
    const before = await count();
    // The organization datapack is readable by a member but writable by admins only.
    const orgPack = await capture(tenant.member.key, {
      turns: [turn('dp-1', 'user', 'hello')],
      datapack: tenant.orgName,
    });
    assert.equal(orgPack.status, 403, await orgPack.clone().text());
    const unknown = await capture(tenant.member.key, {
      turns: [turn('dp-2', 'user', 'hello')],
      datapack: 'No such pack',
    });
    assert.equal(unknown.status, 404);
    assert.match((await unknown.json()).error.message, /No datapack named "No such pack"\. Yours are: /);
    const outsiders = await capture(tenant.outsider.key, {
      turns: [turn('dp-3', 'user', 'hello')],
      datapack: 'Imported chats',
    });
    assert.equal(outsiders.status, 404, 'another user’s datapack does not exist for them');
    for (const speaker of ['Ada\u0000', 'Ada\nGrace', '', 'x'.repeat(101)]) {
      const res = await capture(tenant.member.key, { turns: [{ ...turn('dp-4', 'user', 'hello'), speaker }] });
      assert.equal(res.status, 400, JSON.stringify(speaker));
      assert.match((await res.json()).error.message, /speaker/);
    }
    assert.equal(await count(), before);
  });

  test('secrets are redacted on the server too: none of the planted ones is stored', async () => {
    const res = await capture(tenant.owner.key, { turns: [turn('secrets-1', 'user', plantedSecretsText)] });
    assert.equal(res.status, 200);
    const rows = await server.cairn.store.db
      .selectFrom('entry')
      .select(['content', 'title'])
      .where('kind', '=', 'conversation')
      .execute();
    const versions = await server.cairn.store.db.selectFrom('entry_version').select(['content', 'title']).execute();
    const stored = JSON.stringify([rows, versions]);
    for (const { secret, kind } of PLANTED_SECRETS) assert.ok(!stored.includes(secret), `${kind} reached storage`);
    assert.match(stored, /\[redacted:cairn-key\]/);
  });

  test('size limits and bad input are refused with a reason; nothing partial is stored', async () => {
    const before = await countRows(server.cairn.store.db, 'entry');
    const tooLong = await capture(tenant.owner.key, {
      turns: [turn('ok-1', 'user', 'fine'), turn('long', 'user', 'x'.repeat(70_000))],
    });
    assert.equal(tooLong.status, 400);
    assert.equal(
      await rawStatus(tenant.owner.key, JSON.stringify({ turns: [turn('h', 'user', 'y'.repeat(1_100_000))] })),
      413,
    );
    assert.equal((await capture(tenant.owner.key, { turns: [] })).status, 400);
    assert.equal((await capture('cairn_tkn_nope', { turns: [turn('a', 'user', 'b')] })).status, 401);
    assert.equal(await countRows(server.cairn.store.db, 'entry'), before);
  });

  test('each key is rate-limited, with Retry-After', async () => {
    const batch = (n: number, from: number) => ({
      turns: Array.from({ length: n }, (_, i) => turn(`rl-${from + i}`, 'user', `rate limit probe ${from + i}`)),
    });
    assert.equal((await capture(tenant.outsider.key, batch(50, 0))).status, 200);
    const limited = await capture(tenant.outsider.key, batch(20, 50));
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await capture(tenant.member.key, batch(1, 900))).status, 200, 'other keys are unaffected');
  });
});

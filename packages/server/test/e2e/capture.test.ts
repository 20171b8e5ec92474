import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

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
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

const turn = (id: string, role: 'user' | 'assistant', text: string) => ({ id, role, text, client: 'claude-code', sessionId: 'sess-1', project: 'billing', at: new Date().toISOString() });

describe('POST /api/v1/capture', () => {
  test('turns land in the Conversations datapack, searchable through MCP, and a resend is a duplicate', async () => {
    const turns = [turn('t-1', 'user', 'How do we rotate the billing database credentials?'), turn('t-2', 'assistant', 'Rotate them through the vault runbook, then restart the billing workers.')];
    const first = await capture(tenant.member.key, { turns });
    assert.deepEqual(await first.json(), { stored: 2, duplicates: 0, redacted: [] });
    assert.deepEqual(await (await capture(tenant.member.key, { turns })).json(), { stored: 0, duplicates: 2, redacted: [] });
    const client = await connectMcpClient(server.mcpUrl, tenant.member.key);
    const { results } = await callTool(client, 'search', { query: 'rotate billing credentials vault' });
    const packs = await callTool(client, 'list_datapacks');
    await client.close();
    assert.ok(results.length >= 2);
    assert.equal(results[0].datapack.name, 'Conversations');
    assert.ok(results[0].entry.tags.includes('session:sess-1') && results[0].entry.tags.includes('project:billing'));
    assert.equal(packs.datapacks.find((d: { name: string }) => d.name === 'Conversations').entryCount, 2);
    assert.equal(results.filter((r: { entry: { kind: string } }) => r.entry.kind === 'conversation').length, results.length);
  });

  test('secrets are redacted on the server too: none of the planted ones is stored', async () => {
    const res = await capture(tenant.owner.key, { turns: [turn('secrets-1', 'user', plantedSecretsText)] });
    assert.equal(res.status, 200);
    const rows = await server.cairn.store.db.selectFrom('entry').select(['content', 'title']).where('kind', '=', 'conversation').execute();
    const versions = await server.cairn.store.db.selectFrom('entry_version').select(['content', 'title']).execute();
    const stored = JSON.stringify([rows, versions]);
    for (const { secret, kind } of PLANTED_SECRETS) assert.ok(!stored.includes(secret), `${kind} reached storage`);
    assert.match(stored, /\[redacted:cairn-key\]/);
  });

  test('size limits and bad input are refused with a reason; nothing partial is stored', async () => {
    const before = await server.cairn.store.db
      .selectFrom('entry')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const tooLong = await capture(tenant.owner.key, { turns: [turn('ok-1', 'user', 'fine'), turn('long', 'user', 'x'.repeat(70_000))] });
    assert.equal(tooLong.status, 400);
    assert.equal(await rawStatus(tenant.owner.key, JSON.stringify({ turns: [turn('h', 'user', 'y'.repeat(1_100_000))] })), 413);
    assert.equal((await capture(tenant.owner.key, { turns: [] })).status, 400);
    assert.equal((await capture('cairn_tkn_nope', { turns: [turn('a', 'user', 'b')] })).status, 401);
    const afterCount = await server.cairn.store.db
      .selectFrom('entry')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(afterCount.n), Number(before.n));
  });

  test('each key is rate-limited, with Retry-After', async () => {
    const batch = (n: number, from: number) => ({ turns: Array.from({ length: n }, (_, i) => turn(`rl-${from + i}`, 'user', `rate limit probe ${from + i}`)) });
    assert.equal((await capture(tenant.outsider.key, batch(50, 0))).status, 200);
    const limited = await capture(tenant.outsider.key, batch(20, 50));
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await capture(tenant.member.key, batch(1, 900))).status, 200, 'other keys are unaffected');
  });
});

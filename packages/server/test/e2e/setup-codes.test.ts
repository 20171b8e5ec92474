import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
before(async () => ({ server, tenant } = await startTenantCairn()));
after(() => server?.close());

/** Codes are minted from a portal session (an API key may not mint credentials). */
const mint = async (user: { email: string }) => {
  const cookie = await signIn(server.baseUrl, user.email);
  const res = await fetch(`${server.baseUrl}/api/v1/setup-codes`, {
    method: 'POST',
    headers: { cookie, origin: server.baseUrl },
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { code: string; expiresAt: string };
};
const exchange = (body: unknown) =>
  fetch(`${server.baseUrl}/api/v1/setup-codes/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'cairn-mcp-installer/1.0' },
    body: JSON.stringify(body),
  });

describe('one-time setup codes', () => {
  test('a code is traded once for a fresh key named after the client and host, which then works on /mcp', async () => {
    const { code, expiresAt } = await mint(tenant.member);
    assert.match(code, /^cairn_stp_[A-Za-z0-9_-]{24}$/);
    const ttl = Date.parse(expiresAt) - Date.now();
    assert.ok(ttl > 9 * 60_000 && ttl <= 10 * 60_000, `expires in 10 minutes (${ttl} ms)`);
    const res = await exchange({ code, client: 'cursor', host: 'laptop-7' });
    assert.equal(res.status, 200);
    const { key, name } = (await res.json()) as { key: string; name: string };
    assert.equal(name, 'cursor on laptop-7');
    const client = await connectMcpClient(server.mcpUrl, key);
    const packs = await callTool(client, 'list_datapacks');
    await client.close();
    assert.ok(
      packs.teams.some((t: { id: string }) => t.id === tenant.teamId),
      'the key acts as the user who minted the code',
    );
    const again = await exchange({ code, client: 'cursor', host: 'laptop-7' });
    assert.equal(again.status, 401);
    assert.match(
      ((await again.json()) as { error: { message: string } }).error.message,
      /already used, has expired .* Get a new one/,
    );
  });

  test('two installers racing with one code: exactly one key', async () => {
    const { code } = await mint(tenant.owner);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => exchange({ code, client: 'codex', host: `h${i}` })),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401, 401, 401, 401]);
  });

  test('an expired or unknown code is refused; bad input says which field', async () => {
    const { code } = await mint(tenant.owner);
    await server.cairn.store.db
      .updateTable('setup_code')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    assert.equal((await exchange({ code, client: 'kiro', host: 'h' })).status, 401);
    assert.equal((await exchange({ code: 'cairn_stp_nope', client: 'kiro', host: 'h' })).status, 401);
    const bad = await exchange({ code, client: 'Not A Client!', host: 'h' });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /client/);
  });

  test('a 57-character host gets a key named to fit, and an exchange refused leaves the code usable', async () => {
    const host = 'build-agent-0042.eu-central-1.compute.internal.corp.acme1'; // 57 characters, as a corporate host
    assert.equal(host.length, 57);
    const { code } = await mint(tenant.member);
    assert.equal((await exchange({ code, client: 'Not A Client!', host })).status, 400);
    const res = await exchange({ code, client: 'claude-desktop', host });
    assert.equal(res.status, 200, await res.clone().text());
    const { key, name } = (await res.json()) as { key: string; name: string };
    assert.ok(name.length <= 64, `${name.length} characters`);
    assert.ok(name.startsWith('claude-desktop on build-agent-0042.eu-central-1.'), name);
    assert.ok(name.endsWith('…'), name);
    const client = await connectMcpClient(server.mcpUrl, key);
    await client.close();
    assert.equal(
      (await exchange({ code, client: 'cursor', host: 'h' })).status,
      401,
      'spent once, by the exchange that made a key',
    );
  });

  test('a host with escape sequences, line breaks or bidirectional marks names the key without them', async () => {
    const { code } = await mint(tenant.member);
    const res = await exchange({ code, client: 'cursor', host: 'lap\u001b[2Jtop\r\nfake\u202eexe' });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { name: string }).name, 'cursor on lap[2Jtop fakeexe');
  });

  test('minting needs a signed-in caller', async () => {
    assert.equal((await fetch(`${server.baseUrl}/api/v1/setup-codes`, { method: 'POST' })).status, 401);
  });
});

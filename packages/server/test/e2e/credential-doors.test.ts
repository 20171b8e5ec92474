// /mcp and /api/v1 read credentials with one parser and one key check (auth/credentials.ts):
// the same header gets the same verdict and the same advice at both doors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
before(async () => ({ server, tenant } = await startTenantCairn()));
after(() => server?.close());

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

async function both(
  authorization: string,
): Promise<{ mcp: { status: number; message: string }; api: { status: number; message: string } }> {
  const mcp = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization,
      'user-agent': INSTALLER_USER_AGENT,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(initialize),
  });
  const api = await fetch(`${server.baseUrl}/api/v1/datapacks`, {
    headers: { authorization, 'user-agent': INSTALLER_USER_AGENT },
  });
  return {
    mcp: { status: mcp.status, message: ((await mcp.json()) as { error: { message: string } }).error.message },
    api: { status: api.status, message: ((await api.json()) as { error: { message: string } }).error.message },
  };
}

test('an unusable Authorization header gets the same 401 and the same advice at /mcp and /api/v1', async () => {
  const cases: [string, RegExp][] = [
    ['Bearer ${CAIRN_KEY}', /unexpanded reference \$\{CAIRN_KEY\}.*same name/],
    ['Bearer ', /carries no key/],
    ['Token abc', /"Bearer " prefix is required/],
    ['Bearer cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA000000', /not valid \(it may have been revoked or mistyped\)/],
  ];
  for (const [header, advice] of cases) {
    const { mcp, api } = await both(header);
    assert.equal(mcp.status, 401, header);
    assert.equal(api.status, 401, header);
    assert.match(mcp.message, advice, header);
    assert.equal(api.message, mcp.message, header);
  }
});

test('a genuine key is accepted at both doors; once revoked, refused at both with one message', async () => {
  const api = await fetch(`${server.baseUrl}/api/v1/datapacks`, {
    headers: { authorization: `Bearer ${tenant.member.key}` },
  });
  assert.equal(api.status, 200);
  const mcp = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tenant.member.key}`,
      'user-agent': INSTALLER_USER_AGENT,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(initialize),
  });
  assert.equal(mcp.status, 200);
  const [key] = await server.cairn.store.listApiKeys(tenant.member.id);
  assert.ok(key);
  await server.cairn.store.revokeApiKey(key.id, new Date().toISOString());
  const revoked = await both(`Bearer ${tenant.member.key}`);
  assert.deepEqual([revoked.mcp.status, revoked.api.status], [401, 401]);
  assert.equal(revoked.api.message, revoked.mcp.message);
});

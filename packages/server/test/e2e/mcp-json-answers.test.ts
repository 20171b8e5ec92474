// A 2025-era stateless call (what clients send today) is answered with one JSON body, not an SSE stream.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INSTALLER_USER_AGENT } from '@cairn/contract';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
before(async () => ({ server, tenant } = await startTenantCairn()));
after(() => server?.close());

const post = (body: unknown, accept = 'application/json, text/event-stream') =>
  fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tenant.member.key}`,
      'user-agent': INSTALLER_USER_AGENT,
      'content-type': 'application/json',
      accept,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });

test('initialize and tools/call answer application/json with the JSON-RPC result', async () => {
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'json-test', version: '1' } },
  });
  assert.equal(init.status, 200);
  assert.match(init.headers.get('content-type') ?? '', /^application\/json/);
  const initialized = (await init.json()) as {
    id: number;
    result: { serverInfo: { name: string }; capabilities: { tools?: { listChanged?: boolean } } };
  };
  assert.equal(initialized.id, 1);
  assert.equal(initialized.result.serverInfo.name, 'cairn');
  // A stateless server has no channel to announce a changed tool list, so it must not promise one.
  assert.equal(initialized.result.capabilities.tools?.listChanged, false);

  const call = await post({
    jsonrpc: '2.0',
    id: 'search-1',
    method: 'tools/call',
    params: { name: 'list_datapacks', arguments: {} },
  });
  assert.equal(call.status, 200);
  assert.match(call.headers.get('content-type') ?? '', /^application\/json/);
  const answer = (await call.json()) as {
    id: string;
    result: { structuredContent: { datapacks: { name: string }[] } };
  };
  assert.equal(answer.id, 'search-1');
  assert.ok(answer.result.structuredContent.datapacks.some((d) => d.name === 'Personal'));
});

test('a notification is accepted with 202 and no body; malformed JSON is a JSON-RPC parse error', async () => {
  const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(note.status, 202);
  assert.equal(await note.text(), '');
  const bad = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tenant.member.key}`,
      'user-agent': INSTALLER_USER_AGENT,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: '{"jsonrpc": "2.0", "id": 1, "method": ',
  });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700);
});

test('a tools/call names a tool Cairn lacks: the SDK error that says which, and tools/list still lists every tool', async () => {
  const call = await post({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'no_such_tool', arguments: {} },
  });
  assert.equal(call.status, 200);
  const answer = await call.json();
  assert.deepEqual(answer, { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Tool no_such_tool not found' } });
  const list = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
  const tools = ((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
  assert.deepEqual(tools, [
    'list_datapacks',
    'search',
    'get_guidance',
    'get_entry',
    'save_entry',
    'update_entry',
    'delete_entry',
    'restore_entry',
    'create_datapack',
  ]);
});

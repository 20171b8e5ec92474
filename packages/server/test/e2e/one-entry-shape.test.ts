// MCP and the JSON API show an entry, a search result and a history row in one shape, without storage fields.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
let mcp: Client;
before(async () => {
  server = await startTestCairn();
  tenant = await createTenant(server.cairn);
  mcp = await connectMcpClient(server.mcpUrl, tenant.member.key);
});
after(async () => {
  await mcp?.close();
  await server?.close();
});

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${tenant.member.key}`, 'content-type': 'application/json' },
  });
  return (await res.json()) as Record<string, any>;
};

const PUBLIC_ENTRY_FIELDS = [
  'applies',
  'content',
  'createdAt',
  'createdBy',
  'createdClient',
  'datapackId',
  'expires',
  'id',
  'kind',
  'owner',
  'replacedBy',
  'reviewBy',
  'supersedes',
  'tags',
  'title',
  'updatedAt',
  'updatedBy',
  'updatedClient',
  'version',
];

test('the same entry, search result and history row through MCP and through the JSON API', async () => {
  const saved = await api('/entries', {
    method: 'POST',
    body: JSON.stringify({
      kind: 'standard',
      title: 'Quokka review rule',
      content: 'Every quokka change needs two reviewers.',
    }),
  });
  assert.deepEqual(Object.keys(saved.entry).sort(), PUBLIC_ENTRY_FIELDS);
  const id = saved.entry.id as string;
  await api(`/entries/${id}`, {
    method: 'PATCH',
    body: JSON.stringify({ expectedVersion: 1, content: 'Every quokka change needs two reviewers and a test.' }),
  });

  const viaApi = await api(`/entries/${id}?history=true`);
  const viaMcp = await callTool(mcp, 'get_entry', { id, includeHistory: true });
  assert.deepEqual(viaApi, viaMcp);
  assert.equal(viaApi.history.length, 2);
  for (const row of viaApi.history) assert.ok(!('entryId' in row), 'history rows carry no storage key');

  const searchApi = await api('/search?q=quokka%20reviewers');
  const searchMcp = await callTool(mcp, 'search', { query: 'quokka reviewers' });
  assert.deepEqual(searchApi.results, searchMcp.results);
  assert.equal(searchApi.results[0].entry.id, id);
  assert.deepEqual(Object.keys(searchApi.results[0].entry).sort(), PUBLIC_ENTRY_FIELDS, 'no contentHash or deletedAt');
  assert.equal(searchApi.results[0].datapack.name, 'Personal');

  const listed = await api(`/datapacks/${saved.entry.datapackId}/entries`);
  assert.deepEqual(Object.keys(listed.entries[0]).sort(), PUBLIC_ENTRY_FIELDS);
});

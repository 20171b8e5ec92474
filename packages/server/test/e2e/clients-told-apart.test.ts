// Every API-key client sends the same installer User-Agent; what tells Cursor from Claude Code is the
// clientInfo of MCP initialize, recorded per key as "last used by" and in entries' provenance.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CAPTURE_USER_AGENT, INSTALLER_USER_AGENT } from '@cairn/contract';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createApiKey } from '../../src/domain/api-keys.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
before(async () => ({ server, tenant } = await startTenantCairn()));
after(() => server?.close());

async function connectAs(
  key: string,
  clientInfo: { name: string; version: string; title?: string },
  era: 'legacy' | '2026-07-28' = 'legacy',
): Promise<Client> {
  const client = new Client(clientInfo, { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: era } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${key}`, 'User-Agent': INSTALLER_USER_AGENT } },
    }),
  );
  return client;
}

test('two clients of one user, one key each: each key is last used by its own client, and each entry names it', async () => {
  const cursorKey = await createApiKey(server.cairn.domain, tenant.member.id, 'cursor on laptop');
  const claudeKey = await createApiKey(server.cairn.domain, tenant.member.id, 'claude-code on laptop');
  const cursor = await connectAs(cursorKey.key, { name: 'cursor-vscode', title: 'Cursor', version: '1.7.2' });
  const claude = await connectAs(claudeKey.key, { name: 'claude-code', version: '2.1.330' });
  const fromCursor = await callTool(cursor, 'save_entry', {
    kind: 'note',
    title: 'Tabs or spaces',
    content: 'Two spaces in every TypeScript file here.',
  });
  const fromClaude = await callTool(claude, 'save_entry', {
    kind: 'note',
    title: 'Commit style',
    content: 'Imperative mood in every commit subject line.',
  });
  // Provenance names the client and, beside it, the key: revoking that one key is the fix if it misbehaves.
  assert.equal(fromCursor.entry.createdClient, 'Cursor 1.7.2 · key “cursor on laptop”');
  assert.equal(fromClaude.entry.createdClient, 'claude-code 2.1.330 · key “claude-code on laptop”');
  await server.cairn.keys.flush();
  const byId = new Map((await server.cairn.store.listApiKeys(tenant.member.id)).map((k) => [k.id, k.lastUsedClient]));
  assert.equal(byId.get(cursorKey.record.id), 'Cursor 1.7.2');
  assert.equal(byId.get(claudeKey.record.id), 'claude-code 2.1.330');
  await Promise.all([cursor.close(), claude.close()]);
});

test('a bare call after a restart (no initialize seen) still names the client the key was last used by', async () => {
  const made = await createApiKey(server.cairn.domain, tenant.owner.id, 'windsurf');
  const windsurf = await connectAs(made.key, { name: 'windsurf', version: '1.12' });
  await callTool(windsurf, 'list_datapacks');
  await server.cairn.keys.flush();
  // Another instance (or this one after a restart) sees only the installer User-Agent on a tools/call.
  const answer = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${made.key}`,
      'user-agent': INSTALLER_USER_AGENT,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'save_entry',
        arguments: { kind: 'note', title: 'Bare call', content: 'Saved by a call with no initialize before it.' },
      },
    }),
  });
  const saved = (await answer.json()) as { result: { structuredContent: { entry: { createdClient: string } } } };
  assert.equal(saved.result.structuredContent.entry.createdClient, 'windsurf 1.12 · key “windsurf”');
  await windsurf.close();
});

test('a hostile clientInfo is shown tamed: no control or direction characters, at most 80 characters', async () => {
  const made = await createApiKey(server.cairn.domain, tenant.owner.id, 'hostile');
  const hostile = await connectAs(made.key, { name: `Evil\u0007\u202e\n${'x'.repeat(200)}`, version: '\u0000' });
  await callTool(hostile, 'list_datapacks');
  await server.cairn.keys.flush();
  const label = (await server.cairn.store.getApiKey(made.record.id))?.lastUsedClient ?? '';
  assert.ok(label.startsWith('Evil x'), label);
  assert.ok(label.length <= 80, `${label.length} characters`);
  assert.ok(
    ![...label].some((ch) => ch.codePointAt(0)! < 0x20 || ch === '\u007f' || ch === '\u202e'),
    JSON.stringify(label),
  );
  await hostile.close();
});

test("a client cannot dress up as another key in provenance, and a long client name leaves the key's name whole", async () => {
  const made = await createApiKey(
    server.cairn.domain,
    tenant.member.id,
    'intern-laptop-with-a-long-name-0123456789-abcdefghij-0123456789',
  );
  const forger = await connectAs(made.key, {
    name: 'forger',
    title: 'Cursor 1.7 · key "ops-admin-laptop"',
    version: '1.7',
  });
  const forged = (
    await callTool(forger, 'save_entry', {
      kind: 'note',
      title: 'Forged provenance',
      content: 'Saved by a client whose name imitates a key.',
    })
  ).entry.createdClient as string;
  await forger.close();
  assert.equal(forged.split(' · key “').length, 2, `one key part only: ${forged}`);
  assert.ok(!/[·"“”]/.test(forged.split(' · key “')[0]!), forged);
  assert.ok(forged.endsWith(' · key “intern-laptop-with-a-long-name-0123456789-abcdefghij-0123456789”'), forged);
  const long = await connectAs(made.key, { name: 'long', title: 'A'.repeat(80), version: '1' });
  const byLong = (
    await callTool(long, 'save_entry', {
      kind: 'note',
      title: 'Long client name',
      content: 'Saved by a client with an eighty-character name.',
    })
  ).entry.createdClient as string;
  await long.close();
  const [clientPart, keyPart] = byLong.split(' · key “');
  assert.ok(clientPart!.length <= 40, `client part of ${clientPart!.length} characters`);
  assert.equal(keyPart, 'intern-laptop-with-a-long-name-0123456789-abcdefghij-0123456789”');
});

test("both MCP eras are told apart: a 2026-07-28 client (no initialize; clientInfo in every request's _meta) and a legacy one each appear under their own name", async () => {
  const modernKey = await createApiKey(server.cairn.domain, tenant.member.id, 'modern');
  const legacyKey = await createApiKey(server.cairn.domain, tenant.member.id, 'legacy');
  const seen: string[] = [];
  const modern = await connectAs(
    modernKey.key,
    { name: 'claude-code', title: 'Claude Code', version: '2.1.330' },
    '2026-07-28',
  );
  const legacy = await connectAs(legacyKey.key, { name: 'cursor-vscode', title: 'Cursor', version: '1.7.2' });
  try {
    assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(legacy.getNegotiatedProtocolVersion(), '2025-11-25');
    const fromModern = await callTool(modern, 'save_entry', {
      kind: 'note',
      title: 'Modern era',
      content: 'Saved over the 2026-07-28 protocol revision.',
    });
    const fromLegacy = await callTool(legacy, 'save_entry', {
      kind: 'note',
      title: 'Legacy era',
      content: 'Saved over the 2025 protocol revision after initialize.',
    });
    seen.push(fromModern.entry.createdClient, fromLegacy.entry.createdClient);
    assert.deepEqual(seen, ['Claude Code 2.1.330 · key “modern”', 'Cursor 1.7.2 · key “legacy”']);
    await server.cairn.keys.flush();
    const byId = new Map((await server.cairn.store.listApiKeys(tenant.member.id)).map((k) => [k.id, k.lastUsedClient]));
    assert.equal(byId.get(modernKey.record.id), 'Claude Code 2.1.330');
    assert.equal(byId.get(legacyKey.record.id), 'Cursor 1.7.2');
    assert.equal(
      await server.cairn.store.clientNameOf({ keyId: modernKey.record.id }),
      'Claude Code 2.1.330',
      'kept with the key for every instance',
    );
  } finally {
    await Promise.all([modern.close(), legacy.close()]);
  }
});

test('"last used by" stays the agent after the capture hook and the installer use the same key', async () => {
  const made = await createApiKey(server.cairn.domain, tenant.member.id, 'laptop');
  const claude = await connectAs(made.key, { name: 'claude-code', version: '2.1.330' });
  await callTool(claude, 'list_datapacks');
  await claude.close();
  await server.cairn.keys.flush();
  const lastUsedBy = async () => (await server.cairn.store.getApiKey(made.record.id))!.lastUsedClient;
  assert.equal(await lastUsedBy(), 'claude-code 2.1.330');
  const captured = await fetch(`${server.baseUrl}/api/v1/capture`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${made.key}`,
      'content-type': 'application/json',
      'user-agent': CAPTURE_USER_AGENT,
    },
    body: JSON.stringify({
      turns: [
        {
          id: 'lu-1',
          role: 'user',
          text: 'hello',
          client: 'claude-code',
          sessionId: 's',
          at: new Date().toISOString(),
        },
      ],
    }),
  });
  assert.equal(captured.status, 200, await captured.text());
  await server.cairn.keys.flush();
  assert.equal(await lastUsedBy(), 'claude-code 2.1.330', 'the capture hook is not the agent');
  // The installer's own calls: a bare tools/call on /mcp (its check) and one on the JSON API.
  const checked = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${made.key}`,
      'user-agent': INSTALLER_USER_AGENT,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_datapacks', arguments: {} },
    }),
  });
  assert.equal(checked.status, 200);
  await checked.body?.cancel();
  const api = await fetch(`${server.baseUrl}/api/v1/capture`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${made.key}`,
      'content-type': 'application/json',
      'user-agent': INSTALLER_USER_AGENT,
    },
    body: JSON.stringify({ turns: [] }),
  });
  await api.body?.cancel();
  await server.cairn.keys.flush();
  assert.equal(await lastUsedBy(), 'claude-code 2.1.330', 'the installer is not the agent');
});

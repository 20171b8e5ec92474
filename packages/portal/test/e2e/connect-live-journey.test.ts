// "Waiting for your client…": the Connect dialog shows live when a client first connects with the key it made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('live connection journey');
const { skip } = journey;

test('Manual tab: the dialog waits, then names the client that connected with the new key, the user and their datapacks', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, page } = journey;
  await signUpFirst(page, server.baseUrl);
  await page.getByRole('button', { name: 'Connect a client' }).first().click();
  const connect = page.getByRole('dialog', { name: 'Connect a client' });
  await connect.waitFor();
  await connect.getByRole('radio', { name: 'Cursor' }).check();
  await connect.getByRole('tab', { name: 'Manual (API key)' }).click();
  await connect.getByRole('button', { name: 'Generate API key' }).click();
  const status = connect.getByRole('status').filter({ hasText: /Waiting for your client|connected as/ });
  await status.getByText('Waiting for your client…', { exact: false }).waitFor();
  const key = /cairn_tkn_\w+/.exec((await connect.getByLabel(/^Entry in /).textContent()) ?? '')?.[0];
  assert.ok(key, 'the snippet holds the new key');

  const cursor = new Client({ name: 'cursor-vscode', title: 'Cursor', version: '1.7.2' });
  await cursor.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${key}`, 'User-Agent': 'cairn-mcp-installer/1.0' } },
    }),
  );
  await cursor.callTool({ name: 'list_datapacks', arguments: {} });
  await status.getByText(/✓ Cursor 1\.7\.2 connected as Ada Lovelace — \d+ datapacks/).waitFor({ timeout: 15_000 });
  await cursor.close();
});

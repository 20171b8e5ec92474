// "Waiting for your client…": the Connect dialog shows live when a client first connects with the key it made.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { openBrowser, signUpFirst, skipReason, startPortalServer } from './harness.js';

const skip = skipReason();
if (skip) console.log(`# SKIP portal live connection journey: ${skip}`);

let server: Awaited<ReturnType<typeof startPortalServer>>;
let b: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
before(async () => {
  if (skip) return;
  server = await startPortalServer();
  b = await openBrowser();
  page = b.page;
});
after(async () => {
  await b?.close();
  await server?.close();
});

test('Manual tab: the dialog waits, then names the client that connected with the new key, the user and their datapacks', { skip, timeout: 120_000 }, async () => {
  await signUpFirst(page, server.baseUrl);
  await page.getByRole('button', { name: 'Connect a client' }).first().click();
  const connect = page.getByRole('dialog', { name: 'Connect a client' });
  await connect.waitFor();
  await connect.getByRole('tab', { name: 'Manual (API key)' }).click();
  await connect.getByRole('button', { name: 'Generate API key' }).click();
  const status = connect.getByRole('status').filter({ hasText: /Waiting for your client|connected as/ });
  await status.getByText('Waiting for your client…', { exact: false }).waitFor();
  const key = /cairn_tkn_\w+/.exec((await connect.getByLabel(/^Entry in /).textContent()) ?? '')?.[0];
  assert.ok(key, 'the snippet holds the new key');

  const cursor = new Client({ name: 'cursor-vscode', title: 'Cursor', version: '1.7.2' });
  await cursor.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${key}`, 'User-Agent': 'cairn-mcp-installer/1.0' } } }));
  await cursor.callTool({ name: 'list_datapacks', arguments: {} });
  await status.getByText(/✓ Cursor 1\.7\.2 connected as Ada Lovelace — \d+ datapacks/).waitFor({ timeout: 15_000 });
  await cursor.close();
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CLIENTS, INSTALLER_USER_AGENT } from '@cairn/clients';
import { displayParts, generateApiKey, hashApiKey } from '../../../server/src/auth/api-keys/key-format.js';
import { type BridgeEntry, listDatapacksThrough } from './bridge.js';
import { assertAccessible, shot, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('API-key journey', { clipboard: true });
const { skip } = journey;

/** A tools/call over /mcp, as a client with this key would send it; the JSON-RPC answer. */
async function mcpCall(
  key: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const answer = await fetch(journey.server.mcpUrl, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'User-Agent': INSTALLER_USER_AGENT,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await answer.text();
  const data =
    text
      .split('\n')
      .find((l) => l.startsWith('data: '))
      ?.slice(6) ?? text;
  return JSON.parse(data) as { result?: unknown; error?: { code: number; message: string } };
}

/** A key whose expiry has passed, stored the way an old key would be (the portal cannot make one). */
async function createExpiredKey(email: string, name: string): Promise<string> {
  const store = journey.server.cairn.cairn.store;
  const user = (await store.findUserByEmail(email))!;
  const key = generateApiKey();
  const day = 86_400_000;
  await store.insertApiKey(
    {
      id: `key_${name.replace(/\W/g, '').toLowerCase()}`,
      userId: user.id,
      name,
      ...displayParts(key),
      scope: 'read-write',
      createdAt: new Date(Date.now() - 40 * day).toISOString(),
      expiresAt: new Date(Date.now() - day).toISOString(),
      revokedAt: null,
      lastUsedAt: null,
      lastUsedClient: null,
    },
    hashApiKey(key),
  );
  return key;
}

const datapacksWith = (key: string) =>
  fetch(`${journey.server.baseUrl}/api/v1/datapacks`, {
    headers: { Authorization: `Bearer ${key}`, 'User-Agent': INSTALLER_USER_AGENT },
  });

test('Generate API key → shown once → Manual snippet from Connect works through mcp-remote → revoke → 401', {
  skip,
  timeout: 180_000,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl, {
    name: 'Grace Hopper',
    email: 'grace@example.com',
    password: 'a long enough secret',
    organization: 'Compilers Inc',
  });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByText('No API keys yet').waitFor();
  await page.getByRole('button', { name: 'Generate API key' }).click();
  const gen = page.getByRole('dialog', { name: 'Generate API key' });
  await gen.getByLabel('Key name').fill('Laptop');
  await gen.getByRole('button', { name: 'Generate' }).click();

  const shown = page.getByRole('dialog', { name: 'Your new API key' });
  await shown.getByText('It is shown only this once').waitFor();
  const key = await shown.getByLabel(/API key “Laptop”/).inputValue();
  assert.match(key, /^cairn_tkn_/);
  await shot(page, 'api-key-shown');
  await assertAccessible(page, 'the new API key dialog');
  await shown.getByRole('button', { name: 'Copy API key' }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    shown.getByRole('button', { name: 'Download' }).click(),
  ]);
  assert.equal(readFileSync((await download.path())!, 'utf8').trim(), key);
  await shown.getByRole('button', { name: /I have saved it/ }).click();

  // Gone for good: only the start and the last four remain, before and after a reload.
  const row = page.getByRole('row', { name: /Laptop/ });
  await row.getByText(`…${key.slice(-4)}`).waitFor();
  assert.equal((await page.content()).includes(key), false);
  await page.reload();
  await row.getByText(`…${key.slice(-4)}`).waitFor();
  assert.equal((await page.content()).includes(key), false);
  assert.equal((await datapacksWith(key)).status, 200);
  await row.getByText('Read and write').waitFor();
  assert.equal(await row.getByRole('cell').nth(4).textContent(), 'Never', 'no expiry');

  // A read-only key that expires in 90 days: the dialog offers both, the list shows both.
  await page.getByRole('button', { name: 'Generate API key' }).click();
  const genRead = page.getByRole('dialog', { name: 'Generate API key' });
  await genRead.waitFor();
  assert.equal(
    await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name),
    'name',
    'the first field has focus, not the ×',
  );
  await genRead.getByLabel('Key name').fill('CI reader');
  await genRead.getByRole('radio', { name: 'Read only' }).check();
  await genRead.getByLabel('Expires').selectOption({ label: '90 days' });
  await shot(page, 'api-key-generate-read-only');
  await genRead.getByRole('button', { name: 'Generate' }).click();
  const shownRead = page.getByRole('dialog', { name: 'Your new API key' });
  const readKey = await shownRead.getByLabel(/API key “CI reader”/).inputValue();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'new-api-key', 'the new key has focus');
  await shownRead.getByText(/Read only .*saving is refused/).waitFor();
  // Escape before copying or downloading asks first; Keep goes back to the same key.
  await page.keyboard.press('Escape');
  const unsaved = page.getByRole('alertdialog', { name: "You haven't saved this key" });
  await unsaved.getByRole('button', { name: 'Keep' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Keep', 'the safe choice has focus');
  await unsaved.getByRole('button', { name: 'Keep' }).click();
  await unsaved.waitFor({ state: 'detached' });
  assert.equal(await shownRead.getByLabel(/API key “CI reader”/).inputValue(), readKey);
  await shownRead.getByRole('button', { name: /I have saved it/ }).click();
  assert.equal(
    await page.evaluate(() => document.activeElement?.textContent),
    'Generate API key',
    'focus is back on the opener',
  );
  const readRow = page.getByRole('row', { name: /CI reader/ });
  await readRow.getByText('Read only').waitFor();
  const expiresText = (await readRow.getByRole('cell').nth(4).textContent())!;
  const inNinetyDays = new Date(Date.now() + 90 * 24 * 60 * 60 * 1000).toLocaleDateString('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
  });
  assert.equal(expiresText, inNinetyDays, 'the list shows the expiry date');
  const stored = (
    await server.cairn.cairn.store.listApiKeys(
      (await server.cairn.cairn.store.findUserByEmail('grace@example.com'))!.id,
    )
  ).find((k) => k.name === 'CI reader')!;
  assert.deepEqual(
    [stored.scope, Math.round((Date.parse(stored.expiresAt!) - Date.parse(stored.createdAt)) / 86_400_000)],
    ['read', 90],
  );

  // The read-only key reads, and an MCP write with it is refused with a JSON-RPC error that says what to do.
  assert.equal((await datapacksWith(readKey)).status, 200);
  const write = await mcpCall(readKey, 'save_entry', {
    kind: 'note',
    title: 'From a reader',
    content: 'Must not be stored.',
  });
  assert.equal(write.result, undefined);
  assert.match(write.error?.message ?? '', /read-only.*Settings > API Keys/);
  const search = await fetch(`${server.baseUrl}/api/v1/search?q=reader`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  assert.deepEqual(((await search.json()) as { results: unknown[] }).results, [], 'nothing was stored');

  // A key past its expiry is marked, and refused like a revoked one.
  const expired = await createExpiredKey('grace@example.com', 'Old script');
  await page.reload();
  await page.getByRole('checkbox', { name: 'Show 1 revoked or expired key' }).check();
  await page
    .getByRole('row', { name: /Old script/ })
    .getByText(/^Expired /)
    .waitFor();
  assert.equal((await datapacksWith(expired)).status, 401);
  await shot(page, 'api-keys');
  await assertAccessible(page, 'Settings > API keys');

  // Datapacks > Connect > Claude Desktop > Manual: the bridge entry with a key made right there.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datapacks' }).click();
  await page.getByRole('button', { name: 'Connect a client' }).first().click();
  const connect = page.getByRole('dialog', { name: 'Connect a client' });
  assert.equal(await connect.getByLabel('MCP server URL', { exact: true }).inputValue(), server.mcpUrl);
  await connect.getByRole('tab', { name: 'Automated' }).waitFor();
  await connect.getByRole('button', { name: 'Create installer command' }).click();
  const installer = await connect.getByLabel('Installer command', { exact: true }).textContent();
  assert.match(
    installer!,
    new RegExp(
      `^npx -y ${server.baseUrl}/install/cairn-mcp-installer\\.tgz --client claude-code --url ${server.mcpUrl} --setup-code \\S+$`,
    ),
  );
  await shot(page, 'connect-automated');
  await assertAccessible(page, 'the Connect dialog, Automated');
  // Kiro signs in with a local callback, which this Cairn accepts (the default): its OAuth tab gives the entry.
  await connect.getByRole('radio', { name: 'Kiro (IDE and CLI)' }).check();
  await connect.getByRole('tab', { name: 'OAuth' }).click();
  assert.deepEqual(JSON.parse((await connect.getByLabel(/^Entry in /).textContent())!), {
    mcpServers: { cairn: { url: server.mcpUrl } },
  });
  assert.equal(await connect.getByText(/Not available for this client/).count(), 0);
  // Claude Desktop's connectors connect from the vendor's cloud, which cannot reach 127.0.0.1: the bridge instead.
  await connect.getByRole('radio', { name: 'Claude Desktop' }).check();
  await connect.getByText(new RegExp(`cannot reach ${new URL(server.baseUrl).host.replace(/\./g, '\\.')}`)).waitFor();
  assert.equal(await connect.getByText(/add a custom connector/).count(), 0);
  await connect.getByRole('tab', { name: 'OAuth' }).press('ArrowRight');
  assert.equal(await connect.getByRole('tab', { name: 'Manual (API key)' }).getAttribute('aria-selected'), 'true');
  await connect.getByText('Browser-based code editors: coming soon').waitFor();
  await connect.getByLabel('Key name').fill('Claude Desktop at home');
  await connect.getByRole('button', { name: 'Generate API key' }).click();
  await connect.getByText(/Cairn cannot show it again/).waitFor();
  await shot(page, 'connect-manual');
  await assertAccessible(page, 'the Connect dialog, Manual with a key');
  const snippetLabel = /^Entry in /;
  await connect.getByRole('button', { name: /^Copy entry in / }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await connect.getByLabel(snippetLabel).textContent());
  const doc = JSON.parse(copied) as { mcpServers: { cairn: BridgeEntry } };
  const connectKey = doc.mcpServers.cairn.env.AUTH_HEADER!.replace(/^Bearer /, '');
  assert.match(connectKey, /^cairn_tkn_/);
  // The dialog and the installer share one catalog: the same entry for the same URL and key.
  assert.deepEqual(doc.mcpServers.cairn, CLIENTS['claude-desktop'].block(server.mcpUrl, connectKey));
  await connect.getByRole('button', { name: 'Close' }).click();

  const names = await listDatapacksThrough(doc.mcpServers.cairn);
  assert.deepEqual(names, ['Personal', 'Compilers Inc']);

  // Revoke (with confirmation): the key stops working at once.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('button', { name: 'Revoke Claude Desktop at home' }).click();
  const confirm = page.getByRole('dialog', { name: /Revoke “Claude Desktop at home”/ });
  await shot(page, 'api-key-revoke');
  await assertAccessible(page, 'the revoke dialog');
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  // A revoked key leaves the list (revoked keys would pile up over the live ones); asked for, it is shown, marked.
  const showRetired = page.getByRole('checkbox', { name: 'Show 2 revoked or expired keys' });
  await showRetired.waitFor();
  assert.equal(await page.getByRole('row', { name: /Claude Desktop at home/ }).count(), 0);
  await showRetired.check();
  await page
    .getByRole('row', { name: /Claude Desktop at home/ })
    .getByText(/Revoked/)
    .waitFor();
  assert.equal((await datapacksWith(connectKey)).status, 401);
  assert.equal((await datapacksWith(key)).status, 200);
  await shot(page, 'api-keys-revoked');

  assert.deepEqual(b.errors, []);
});

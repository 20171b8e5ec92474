// The Audit page: an admin reads the organization's trail and filters it; a member sees only their own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createUser } from '../../../server/src/domain/accounts.js';
import { createApiKey } from '../../../server/src/domain/api-keys.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { callTool, connectMcpClient } from '../../../server/src/testing/mcp-client.js';
import { assertAccessible, openBrowser, shot, signUpFirst, skipReason, startPortalServer } from './harness.js';

runFileOnEachBackend();

const skip = skipReason();
if (skip) console.log(`# SKIP portal audit journey: ${skip}`);

let server: Awaited<ReturnType<typeof startPortalServer>>;
let admin: Awaited<ReturnType<typeof openBrowser>>;
let member: Awaited<ReturnType<typeof openBrowser>>;

before(async () => {
  if (skip) return;
  server = await startPortalServer();
  admin = await openBrowser();
  member = await openBrowser();
});
after(async () => {
  await admin?.close();
  await member?.close();
  await server?.close();
});

const toAudit = async (page: Page) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
};
const rows = (page: Page) => page.getByRole('table', { name: 'Audit events' }).locator('tbody tr');

test('an admin reads the organization trail with the key and client of each change, and filters by kind, person and date; a member sees only their own', {
  skip,
  timeout: 180_000,
}, async () => {
  const page = admin.page;
  await signUpFirst(page, server.baseUrl);
  const cairn = server.cairn.cairn;
  const ada = (await cairn.store.findUserByEmail('ada@example.com'))!;
  await createUser(cairn.domain, cairn.auth, {
    email: 'bob@example.com',
    name: 'Bob Member',
    password: 'correct horse battery',
    org: 'Analytical Engines',
    join: true,
  });
  const { key } = await createApiKey(cairn.domain, ada.id, 'laptop');
  const client = await connectMcpClient(server.mcpUrl, key);
  try {
    const packs = await callTool<{ datapacks: { id: string; scope: string }[] }>(client, 'list_datapacks');
    const orgPack = packs.datapacks.find((d) => d.scope === 'organization')!;
    await callTool(client, 'save_entry', {
      datapack: orgPack.id,
      kind: 'policy',
      title: 'No force pushes to main',
      content: 'Protect the main branch.',
    });
  } finally {
    await client.close();
  }
  await cairn.domain.audit.flush();

  await toAudit(page);
  const policy = rows(page).filter({ hasText: 'Entry created' });
  await policy.getByText(/No force pushes to main/).waitFor();
  await policy.getByText('key “laptop” · cairn-test 1.0.0').waitFor();
  await policy.getByText('ada@example.com').waitFor();
  assert.equal(await page.getByText('Protect the main branch.').count(), 0, 'entry bodies are not shown');
  // Events in words, never dotted codes or raw ids.
  const table = (await page.getByRole('table', { name: 'Audit events' }).textContent())!;
  assert.doesNotMatch(table, /\b(entry|key|auth|datapack)\.[a-z_]+|\b(ent|usr|dpk|key|aud)_[A-Za-z0-9]{6,}/);
  await shot(page, 'audit');
  await assertAccessible(page, 'the Audit page');

  await page.getByLabel('Kind').selectOption('entry');
  await rows(page).filter({ hasText: 'datapack' }).first().waitFor({ state: 'detached' });
  const kinds = await rows(page)
    .locator('span[title]')
    .evaluateAll((spans) => spans.map((s) => s.getAttribute('title') ?? ''));
  assert.ok(kinds.length > 0 && kinds.every((k) => k.startsWith('entry.')), kinds.join(', '));
  await page.getByLabel('Person').selectOption({ label: 'Bob Member (bob@example.com)' });
  await page.getByText('Nothing recorded matches these filters.').waitFor();
  await page.getByLabel('Person').selectOption('');
  await policy.waitFor();
  await page.getByLabel('From').fill('2999-01-01');
  await page.getByText('Nothing recorded matches these filters.').waitFor();

  const mine = member.page;
  await mine.goto(`${server.baseUrl}/signin`);
  await mine.getByLabel('Email').fill('bob@example.com');
  await mine.getByLabel('Password').fill('correct horse battery');
  await mine.getByRole('button', { name: 'Sign in' }).click();
  await mine.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();
  await cairn.domain.audit.flush();
  await toAudit(mine);
  await rows(mine).filter({ hasText: 'Signed in' }).first().waitFor();
  assert.equal(await mine.getByLabel('Person').count(), 0, 'a member has no person filter');
  assert.equal(await mine.getByText('No force pushes to main').count(), 0, "a member does not see the admin's changes");
  assert.deepEqual([...admin.errors, ...member.errors], []);
});

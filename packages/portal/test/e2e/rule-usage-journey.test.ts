// The Rule usage page: rules never given in 30 days are listed on top, given ones below with their counts,
// expired ones apart.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../../server/src/domain/api-keys.js';
import { flushRuleUsage } from '../../../server/src/domain/rule-usage.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { callTool, connectMcpClient } from '../../../server/src/testing/mcp-client.js';
import { assertAccessible, openBrowser, signUpFirst, skipReason, startPortalServer } from './harness.js';

runFileOnEachBackend();

const skip = skipReason();
if (skip) console.log(`# SKIP portal rule usage journey: ${skip}`);

let server: Awaited<ReturnType<typeof startPortalServer>>;
let admin: Awaited<ReturnType<typeof openBrowser>>;

before(async () => {
  if (skip) return;
  server = await startPortalServer();
  admin = await openBrowser();
});
after(async () => {
  await admin?.close();
  await server?.close();
});

test('an admin sees the never-given rule on top and the given one with its count', {
  skip,
  timeout: 180_000,
}, async () => {
  const page = admin.page;
  await signUpFirst(page, server.baseUrl);
  const cairn = server.cairn.cairn;
  const ada = (await cairn.store.findUserByEmail('ada@example.com'))!;
  const { key } = await createApiKey(cairn.domain, ada.id, 'laptop');
  const client = await connectMcpClient(server.mcpUrl, key);
  try {
    const packs = await callTool<{ datapacks: { id: string; scope: string }[] }>(client, 'list_datapacks');
    const orgPack = packs.datapacks.find((d) => d.scope === 'organization')!;
    await callTool(client, 'save_entry', {
      datapack: orgPack.id,
      kind: 'policy',
      title: 'Every repository has a CODEOWNERS file',
      content: 'Every repository has a CODEOWNERS file naming its owners.',
      applies: { always: true },
    });
    await callTool(client, 'save_entry', {
      datapack: orgPack.id,
      kind: 'standard',
      title: 'Greenhouse irrigation valves',
      content: 'Irrigation valves in the greenhouse are flushed weekly.',
    });
    for (let i = 0; i < 2; i++) await callTool(client, 'get_guidance', { task: 'plan the release' });
    // Saved after the answers, so never given: without its expiry it would be listed as such.
    await callTool(client, 'save_entry', {
      datapack: orgPack.id,
      kind: 'policy',
      title: 'Fax machines are inventoried',
      content: 'Every fax machine is on the inventory list.',
      expires: cairn.domain.now().slice(0, 10),
    });
    await flushRuleUsage(cairn.domain);
  } finally {
    await client.close();
  }
  // Two days on, the rule that expires today is no longer served: listed apart.
  const real = cairn.domain.now;
  const expiredOn = real().slice(0, 10);
  cairn.domain.now = () => new Date(Date.parse(real()) + 2 * 86_400_000).toISOString();
  try {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rule usage' }).click();
    await page.getByRole('heading', { name: 'Rule usage', level: 1 }).waitFor();
    const never = page.getByRole('list', { name: 'Rules never given' });
    await never.getByText('Greenhouse irrigation valves').waitFor();
    assert.deepEqual(await never.getByRole('listitem').locator('.entry-title').allTextContents(), [
      'Greenhouse irrigation valves',
    ]);
    const given = page.getByRole('list', { name: 'Rules given' }).getByRole('listitem');
    const row = given.filter({ hasText: 'Every repository has a CODEOWNERS file' });
    assert.match((await row.textContent()) ?? '', /given 2 times/);
    const expired = page.getByRole('list', { name: 'Rules expired' }).getByRole('listitem');
    assert.equal(
      await expired.textContent(),
      `Fax machines are inventoried expired after ${expiredOn} · given 0 times, named 0`,
    );
    await assertAccessible(page, 'rule usage');
  } finally {
    cairn.domain.now = real;
  }
});

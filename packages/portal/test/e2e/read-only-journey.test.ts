// A member who may not change an organization datapack is not offered Add, Edit or Delete there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAccess } from '../../../server/src/domain/access.js';
import { createUser } from '../../../server/src/domain/accounts.js';
import { listDatapacks } from '../../../server/src/domain/datapacks.js';
import { deleteEntry, saveEntry } from '../../../server/src/domain/entries.js';
import { assertAccessible, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('read-only journey');
const { skip } = journey;

test('a plain member sees the organization datapack read-only; their own stays writable', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl);
  const cairn = server.cairn.cairn;
  const owner = (await cairn.store.findUserByEmail('ada@example.com'))!;
  const ownerAccess = await loadAccess(cairn.domain, {
    userId: owner.id,
    client: 'test',
    via: 'cli',
    scope: 'read-write',
  });
  const org = (await listDatapacks(cairn.domain, ownerAccess)).find((d) => d.scope === 'organization')!;
  await saveEntry(cairn.domain, ownerAccess, {
    datapack: org.id,
    kind: 'policy',
    title: 'Review before merge',
    content: 'Every change gets one review.',
  });
  const old = await saveEntry(cairn.domain, ownerAccess, {
    datapack: org.id,
    kind: 'policy',
    title: 'Fax approvals',
    content: 'Approvals are sent by fax.',
  });
  await deleteEntry(cairn.domain, ownerAccess, old.entry.id);
  await createUser(cairn.domain, cairn.auth, {
    email: 'bob@example.com',
    name: 'Bob Member',
    password: 'correct horse battery',
    org: 'Analytical Engines',
    join: true,
  });

  await b.context.clearCookies();
  await page.goto(`${server.baseUrl}/signin`);
  await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
  await page.getByLabel('Email').fill('bob@example.com');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();

  await page.getByRole('link', { name: org.name }).first().click();
  await page.getByRole('heading', { name: org.name, level: 1 }).waitFor();
  await page.getByRole('note').filter({ hasText: 'Read-only for you' }).waitFor();
  await assertAccessible(page, 'a read-only organization datapack');
  assert.equal(await page.getByRole('button', { name: 'Add entry' }).count(), 0);
  await page.getByRole('button', { name: /Review before merge/ }).click();
  const entry = page.getByRole('dialog');
  await entry.getByText('Every change gets one review.').first().waitFor();
  assert.equal(await entry.getByRole('button', { name: 'Edit' }).count(), 0);
  assert.equal(await entry.getByRole('button', { name: 'Delete' }).count(), 0);
  await page.keyboard.press('Escape');

  await page.getByRole('link', { name: 'Datapacks' }).first().click();
  await page.getByRole('link', { name: 'Personal' }).first().click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Add entry' }).count(), 1, 'their own datapack is writable');
  assert.equal(await page.getByRole('note').filter({ hasText: 'Read-only for you' }).count(), 0);

  // The Trash shows them the deleted organization policy, with no Restore.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Trash' }).click();
  await page.getByRole('list', { name: 'Deleted entries' }).getByText('Fax approvals').waitFor();
  assert.equal(await page.getByRole('button', { name: /^Restore/ }).count(), 0);
});

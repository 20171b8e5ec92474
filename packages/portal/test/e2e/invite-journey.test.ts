import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { assertAccessible, openBrowser, shot, signUpFirst, skipReason, startPortalServer } from './harness.js';

runFileOnEachBackend();

const skip = skipReason();
if (skip) console.log(`# SKIP portal invite journey: ${skip}`);

let server: Awaited<ReturnType<typeof startPortalServer>>;
let admin: Awaited<ReturnType<typeof openBrowser>>;
let invitee: Awaited<ReturnType<typeof openBrowser>>;

before(async () => {
  if (skip) return;
  server = await startPortalServer();
  admin = await openBrowser();
  invitee = await openBrowser();
});
after(async () => {
  await admin?.close();
  await invitee?.close();
  await server?.close();
});

const toOrganization = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organization' }).click();

test('an admin invites by link, the invitee signs up into the organization, and the admin changes their role', {
  skip,
  timeout: 180_000,
}, async () => {
  await signUpFirst(admin.page, server.baseUrl, {
    name: 'Mary Jackson',
    email: 'mary@example.com',
    password: 'a long enough secret',
    organization: 'Langley',
  });
  await toOrganization(admin.page);
  // The page tells the owner that they own it, not that they are "an admin".
  await admin.page.getByText(/Members, invitations and teams\. You own this organization\./).waitFor();
  await admin.page.getByRole('button', { name: 'Create invite link' }).click();
  const link = await admin.page.getByLabel('Invite link', { exact: true }).inputValue();

  await invitee.page.goto(link);
  // The page names the organization and who invited.
  await invitee.page.getByRole('heading', { name: 'Join Langley on Cairn' }).waitFor();
  await invitee.page.getByText('Mary Jackson invited you to join Langley: your account joins it.').waitFor();
  await invitee.page.getByLabel('Your name').fill('Dorothy Vaughan');
  await invitee.page.getByLabel('Email').fill('dorothy@example.com');
  await invitee.page.getByLabel('Password').fill('another long secret');
  await shot(invitee.page, 'sign-up-invited');
  await assertAccessible(invitee.page, 'the invited sign-up page');
  await invitee.page.getByRole('button', { name: 'Create account' }).click();
  await invitee.page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();
  await invitee.page
    .getByRole('cell', { name: /Langley/ })
    .first()
    .waitFor();
  // A used link says so, and shows no sign-up form.
  const again = await admin.browser.newPage();
  await again.goto(link);
  await again.getByText(/This invite link is not valid: it was used already/).waitFor();
  assert.equal(await again.getByLabel('Your name').count(), 0);
  await again.close();

  await admin.page.reload();
  const role = admin.page.getByLabel('Role of Dorothy Vaughan');
  assert.equal(await role.inputValue(), 'member');
  await role.selectOption('admin');
  await admin.page.waitForFunction(
    () => !document.querySelector('select[aria-label="Role of Dorothy Vaughan"]')?.hasAttribute('disabled'),
  );
  const dorothy = (await server.cairn.cairn.store.findUserByEmail('dorothy@example.com'))!;
  assert.equal((await server.cairn.cairn.store.getMemberships(dorothy.id)).organizations[0]!.role, 'admin');
  await shot(admin.page, 'organization-roles', { fullPage: true });

  // The invitee, now an admin, may not demote the only owner: the server says why, and the page shows it.
  await toOrganization(invitee.page);
  await invitee.page.reload();
  await invitee.page.getByText(/Members, invitations and teams\. You are an admin\./).waitFor();
  await invitee.page.getByLabel('Role of Mary Jackson').selectOption('member');
  await invitee.page
    .getByRole('alert')
    .getByText(/Only an owner can/)
    .waitFor();
  assert.deepEqual([...admin.errors, ...invitee.errors.filter((e) => !/403/.test(e))], []);
});

test('an admin sees open invitations and cancels one, renames a team, takes someone out of it, and removes a member', {
  skip,
  timeout: 180_000,
}, async () => {
  const page = admin.page;
  await toOrganization(page);
  await page.getByRole('button', { name: 'Create invite link' }).click();
  const link = await page.getByLabel('Invite link', { exact: true }).inputValue();
  const open = page.getByRole('list', { name: 'Open invitations' });
  await open.getByRole('listitem').first().waitFor();
  assert.equal(await open.getByRole('listitem').count(), 1, 'used invitations are not listed');
  await open.getByRole('button', { name: /^Cancel the member invitation/ }).click();
  await open.getByRole('button', { name: 'Cancel this invitation' }).click();
  await open.waitFor({ state: 'detached' });
  const fresh = await invitee.browser.newContext();
  const late = await fresh.newPage();
  await late.goto(link);
  // A cancelled link says so before anyone fills a form in.
  await late.getByText(/invite link is not valid: .*was cancelled/).waitFor();
  assert.equal(await late.getByLabel('Your name').count(), 0);
  await fresh.close();

  await page.getByLabel('Team name').fill('Flight Research');
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.getByRole('button', { name: 'Add member' }).click();
  const members = page.getByRole('list', { name: 'Members of Flight Research' });
  await members.getByText('Dorothy Vaughan').waitFor();
  await page.getByRole('button', { name: 'Rename Flight Research' }).click();
  await page.getByLabel('New name for Flight Research').fill('Flight Dynamics');
  await page.getByRole('button', { name: 'Save name' }).click();
  const renamed = page.getByRole('list', { name: 'Members of Flight Dynamics' });
  await renamed.waitFor();
  await renamed.getByRole('button', { name: 'Remove Dorothy Vaughan from Flight Dynamics' }).click();
  await renamed.getByRole('button', { name: 'Remove from Flight Dynamics' }).click();
  await renamed.getByText('Dorothy Vaughan').waitFor({ state: 'detached' });
  await shot(page, 'organization-admin', { fullPage: true });
  await assertAccessible(page, 'Settings > Organization');

  await page.getByRole('button', { name: 'Remove Dorothy Vaughan' }).click();
  await page.getByRole('button', { name: 'Remove Dorothy Vaughan from Langley' }).click();
  await page.getByRole('cell', { name: 'dorothy@example.com' }).waitFor({ state: 'detached' });
  const dorothy = (await server.cairn.cairn.store.findUserByEmail('dorothy@example.com'))!;
  assert.deepEqual((await server.cairn.cairn.store.getMemberships(dorothy.id)).organizations, []);
  assert.deepEqual(admin.errors, []);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAccessible, shot, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('account journey');
const { skip } = journey;

test('Settings > Account: a new name shows at once; a new password needs the current one and is the one that signs in', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl, {
    name: 'Katherine',
    email: 'kj@example.com',
    password: 'first long passphrase',
    organization: 'Langley',
  });
  await page.getByRole('link', { name: 'Katherine' }).click();
  await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
  await page.getByLabel('Your name').fill('Katherine Johnson');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByRole('status').getByText('Name saved.').waitFor();
  await page.getByRole('link', { name: 'Katherine Johnson' }).waitFor();

  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password').fill('second long passphrase 1962');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page
    .getByRole('alert')
    .getByText(/current password is not right/)
    .waitFor();
  await page.getByLabel('Current password').fill('first long passphrase');
  await page.getByLabel('New password').fill('second long passphrase 1962');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Password changed. Your other sessions have ended.').waitFor();
  assert.equal(await page.getByLabel('Current password').inputValue(), '', 'the password fields are cleared');
  await shot(page, 'account');
  await assertAccessible(page, 'Settings > Account');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
  await page.getByLabel('Email').fill('kj@example.com');
  await page.getByLabel('Password').fill('second long passphrase 1962');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();
  assert.deepEqual(
    b.errors.filter((e) => !/403/.test(e)),
    [],
  );
});

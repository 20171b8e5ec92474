import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('lifecycle journey');
const { skip } = journey;

test('the entry dialog sets review-by and expiry dates; a row past its review-by date shows "Review due"; emptying a date clears it', {
  skip,
}, async () => {
  const { server, page } = journey;
  await signUpFirst(page, server.baseUrl);
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Add entry' }).click();
  const add = page.getByRole('dialog', { name: 'Add entry' });
  await add.getByLabel('Title').fill('Rotate the deploy keys');
  await add.getByLabel('Content').fill('Rotate every deploy key once a year.');
  await add.getByLabel('Kind').selectOption('preference');
  await add.getByLabel('Review by').fill('2020-01-31');
  await add.getByLabel('Expires').fill('2099-12-31');
  await add.getByRole('button', { name: 'Add entry' }).click();
  await add.waitFor({ state: 'detached' });

  const badge = page.locator('.badge.applies-review');
  await badge.waitFor();
  assert.equal(await badge.textContent(), 'Review due');
  assert.equal(await page.locator('.badge.applies-expired').count(), 0, 'not expired before 2099-12-31');

  const read = async () => {
    const store = server.cairn.cairn.store;
    const [hit] = await store.rankedEntries({
      datapackIds: (await store.db.selectFrom('datapack').select('id').execute()).map((d) => d.id),
      text: 'rotate deploy keys',
      limit: 1,
    });
    return hit?.entry;
  };
  const saved = await read();
  assert.deepEqual([saved?.reviewBy, saved?.expires, saved?.owner], ['2020-01-31', '2099-12-31', saved?.createdBy]);

  await page.getByRole('button', { name: /Rotate the deploy keys/ }).click();
  const view = page.getByRole('dialog', { name: 'Rotate the deploy keys' });
  await view.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit entry' });
  assert.equal(await edit.getByLabel('Expires').inputValue(), '2099-12-31');
  await edit.getByLabel('Expires').fill('');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.waitFor({ state: 'detached' });
  let changed = await read();
  for (let i = 0; i < 50 && changed?.expires; i++) {
    await new Promise((r) => setTimeout(r, 100));
    changed = await read();
  }
  assert.deepEqual([changed?.reviewBy, changed?.expires ?? null], ['2020-01-31', null]);
});

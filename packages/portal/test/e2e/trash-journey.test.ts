import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shot, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('trash journey');
const { skip } = journey;

test('delete an entry → Trash → Restore → its history shows word diffs and restores an earlier version; a datapack goes to the Trash and back', {
  skip,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl);
  const nav = page.getByRole('navigation', { name: 'Main' });

  // An entry with two versions, then deleted.
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  assert.equal(
    await page.getByRole('button', { name: 'Delete datapack' }).count(),
    0,
    'the default datapack cannot be deleted',
  );
  await page.getByRole('button', { name: 'Add entry' }).click();
  const add = page.getByRole('dialog', { name: 'Add entry' });
  await add.getByLabel('Title').fill('Coffee order');
  await add.getByLabel('Content').fill('A flat white with oat milk, no sugar.');
  await add.getByRole('button', { name: 'Add entry' }).click();
  await add.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: /Coffee order/ }).click();
  const view = page.getByRole('dialog', { name: 'Coffee order' });
  await view.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit entry' });
  await edit.getByLabel('Content').fill('A cortado with oat milk, no sugar.');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await view.getByText('version 2').waitFor();
  await view.getByRole('button', { name: 'Delete' }).click();
  await view.getByText(/stays in the Trash/).waitFor();
  await view.getByRole('button', { name: 'Delete entry' }).click();
  await page.getByText('No entries yet — connect a client').waitFor();

  // The Trash lists it, with who deleted it; Restore brings it back.
  await nav.getByRole('link', { name: 'Trash' }).click();
  await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  const deleted = page.getByRole('list', { name: 'Deleted entries' });
  await deleted.getByText('Coffee order').waitFor();
  await deleted.getByText(/deleted by you/).waitFor();
  await shot(page, 'trash');
  await deleted.getByRole('button', { name: 'Restore Coffee order' }).click();
  await page.getByRole('status').getByText('Restored “Coffee order”.').waitFor();
  await page.getByText('The trash is empty').waitFor();
  await page.getByRole('status').getByRole('link', { name: 'Open it' }).click();

  // Back in its datapack; its history: v4 restores v2, and v2 shows what changed from v1, word by word.
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  await page.getByRole('button', { name: /Coffee order/ }).click();
  await view.getByText('version 4', { exact: true }).waitFor();
  const history = view.getByRole('region', { name: 'Version history' });
  await history.getByText('restore of v2').waitFor();
  assert.equal(await history.getByRole('listitem').count(), 4);
  await history.getByText('v2', { exact: true }).click();
  const diff = history.getByRole('group', { name: 'Content changes in version 2' });
  await diff.waitFor();
  assert.equal((await diff.locator('del').allTextContents()).join(' ').trim(), 'flat white');
  assert.equal((await diff.locator('ins').allTextContents()).join(' ').trim(), 'cortado');
  assert.match((await diff.textContent()) ?? '', /with oat milk, no sugar\./);
  await shot(page, 'entry-diff');

  // Restore v1 as a new version: the history keeps everything.
  await history.getByText('v1', { exact: true }).click();
  await history
    .getByRole('listitem')
    .filter({ hasText: /^v1/ })
    .getByRole('button', { name: 'Restore this version' })
    .click();
  await view.getByRole('status').getByText('Version 1 restored as version 5').waitFor();
  await view.getByText('version 5', { exact: true }).waitFor();
  assert.equal(await history.getByRole('listitem').count(), 5);
  assert.equal(
    (await view.locator('.entry-content').first().textContent())?.trim(),
    'A flat white with oat milk, no sugar.',
  );
  await view.getByRole('button', { name: 'Close' }).click();

  // A datapack goes to the Trash with its entries and comes back.
  await nav.getByRole('link', { name: 'Datapacks' }).click();
  await page.getByRole('button', { name: 'New datapack' }).click();
  const create = page.getByRole('dialog', { name: 'New datapack' });
  await create.getByLabel('Name').fill('Holiday plans');
  await create.getByRole('button', { name: 'Create datapack' }).click();
  await page.getByRole('heading', { name: 'Holiday plans', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Delete datapack' }).click();
  await page.getByRole('alert').getByRole('button', { name: 'Delete datapack' }).click();
  await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  const packs = page.getByRole('list', { name: 'Deleted datapacks' });
  await packs.getByText('Holiday plans').waitFor();
  await nav.getByRole('link', { name: 'Datapacks' }).click();
  await page.getByRole('link', { name: 'Personal', exact: true }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Holiday plans' }).count(), 0, 'gone from the list');
  await nav.getByRole('link', { name: 'Trash' }).click();
  await packs.getByRole('button', { name: 'Restore datapack Holiday plans' }).click();
  await page.getByRole('status').getByText('Restored “Holiday plans”.').waitFor();
  await nav.getByRole('link', { name: 'Datapacks' }).click();
  await page.getByRole('link', { name: 'Holiday plans' }).waitFor();

  // Delete forever: asked once more, Cancel keeps it; then it is gone with every version, from the store too.
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('button', { name: /Coffee order/ }).click();
  await view.getByRole('button', { name: 'Delete' }).click();
  await view.getByRole('button', { name: 'Delete entry' }).click();
  await nav.getByRole('link', { name: 'Trash' }).click();
  await deleted.getByText('Coffee order').waitFor();
  await deleted.getByRole('button', { name: 'Delete Coffee order forever' }).click();
  await deleted
    .getByRole('group', { name: 'Delete Coffee order for good?' })
    .getByRole('button', { name: 'Cancel' })
    .click();
  await deleted.getByRole('button', { name: 'Restore Coffee order' }).waitFor();
  const trash = (await page.evaluate(() => fetch('/api/v1/trash').then((r) => r.json()))) as {
    entries: { entry: { id: string; title: string } }[];
  };
  const coffeeId = trash.entries.find((t) => t.entry.title === 'Coffee order')!.entry.id;
  assert.ok(await server.cairn.cairn.store.getEntry(coffeeId), 'still stored after Cancel');
  await deleted.getByRole('button', { name: 'Delete Coffee order forever' }).click();
  await deleted.getByRole('button', { name: 'Yes, delete forever' }).click();
  await page.getByRole('status').getByText('Deleted “Coffee order” for good.').waitFor();
  await page.getByText('The trash is empty').waitFor();
  assert.equal(await server.cairn.cairn.store.getEntry(coffeeId), undefined);
  assert.deepEqual(await server.cairn.cairn.store.listEntryVersions(coffeeId), []);

  assert.deepEqual(b.errors, []);
});

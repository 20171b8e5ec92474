import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('export import journey');
const { skip } = journey;

const WHO = { name: 'Grace', email: 'grace@example.com', password: 'a long enough passphrase', organization: 'Navy' };

/** Saves a note, downloads "my data", then deletes the note for good: the file holds what this Cairn lost. */
async function exportThenPurge(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const saved = await fetch('/api/v1/entries', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Nanoseconds', content: 'A nanosecond is about 30 cm of wire.' }),
    });
    const { entry } = await saved.json();
    const file = await (await fetch('/api/v1/export?mine=true')).text();
    await fetch(`/api/v1/entries/${entry.id}`, { method: 'DELETE' });
    await fetch(`/api/v1/trash/entries/${entry.id}`, { method: 'DELETE' });
    return file;
  });
}

/** Whether an element lies wholly inside the viewport. */
async function inViewport(page: Page, box: { x: number; y: number; width: number; height: number } | null) {
  const v = page.viewportSize()!;
  return (
    !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= v.width + 0.5 && box.y + box.height <= v.height + 0.5
  );
}

test('Settings > Account > Import an export: a preview of what it would create, then the import', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl, WHO);
  const file = await exportThenPurge(page);

  await page.getByRole('link', { name: 'Grace' }).click();
  await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Import an export' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import an export' });

  // Not an export: refused, naming the line; Import stays off.
  await dialog.getByLabel('Export file (.jsonl)').setInputFiles({
    name: 'notes.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from('{"format":"something-else"}\n'),
  });
  await dialog
    .getByRole('alert')
    .getByText(/^Line 1: this is not a Cairn export/)
    .waitFor();
  assert.equal(await dialog.getByRole('button', { name: 'Import' }).isDisabled(), true);

  await dialog.getByLabel('Export file (.jsonl)').setInputFiles({
    name: 'cairn-export-my-data.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(file),
  });
  const preview = dialog.getByRole('region', { name: 'Import preview' });
  await preview.getByText('Nothing is written yet. Importing would give:').waitFor();
  const entries = preview.getByRole('row', { name: /^Entries/ });
  assert.deepEqual(await entries.getByRole('cell').allTextContents(), ['1', '0', '0', '0']);
  const packs = preview.getByRole('row', { name: /^Datapacks/ });
  assert.deepEqual(await packs.getByRole('cell').allTextContents(), ['0', '0', '1', '0']);
  await assertAccessible(page, 'the import preview');
  const before = await page.evaluate(async () => (await (await fetch('/api/v1/search?q=nanosecond')).json()).results);
  assert.deepEqual(before, [], 'the preview wrote nothing');

  await dialog.getByRole('button', { name: 'Import' }).click();
  const done = dialog.getByRole('region', { name: 'Import done' });
  await done.getByText('Imported: 1 versions written.').waitFor();
  assert.deepEqual(
    await done
      .getByRole('row', { name: /^Entries/ })
      .getByRole('cell')
      .allTextContents(),
    ['1', '0', '0', '0'],
  );
  const titles = await page.evaluate(async () =>
    (await (await fetch('/api/v1/search?q=nanosecond')).json()).results.map(
      (r: { entry: { title: string } }) => r.entry.title,
    ),
  );
  assert.deepEqual(titles, ['Nanoseconds']);
  await dialog.getByRole('button', { name: 'Done' }).click();
  // The browser logs the refused file's 400 itself; nothing else may go wrong.
  assert.deepEqual(
    b.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e)),
    [],
  );
});

for (const size of [
  { width: 1280, height: 720 },
  { width: 390, height: 844 },
]) {
  test(`at ${size.width}×${size.height} the Connect and import dialogs fit the screen, their buttons in view, the body scrolling inside`, {
    skip,
    timeout: 120_000,
  }, async () => {
    const { page } = journey;
    await page.setViewportSize(size);
    await page.goto(`${journey.server.baseUrl}/datapacks`);
    await page.getByRole('link', { name: 'Personal', exact: true }).click();
    await page.getByRole('button', { name: 'Connect a client' }).first().click();
    const connect = page.getByRole('dialog', { name: 'Connect a client' });
    await connect.waitFor();
    for (const tab of ['Automated', 'OAuth', 'Manual']) {
      const named = connect.getByRole('tab', { name: new RegExp(tab) });
      if ((await named.count()) === 0) continue;
      await named.first().click();
      assert.ok(await inViewport(page, await connect.boundingBox()), `${tab}: the dialog fits the screen`);
      const self = await connect.evaluate((d) => ({ scroll: d.scrollHeight, client: d.clientHeight }));
      assert.ok(self.scroll <= self.client + 1, `${tab}: the dialog itself does not scroll (${JSON.stringify(self)})`);
      const panel = connect.getByRole('tabpanel');
      for (const button of await panel.getByRole('button').all()) {
        await button.scrollIntoViewIfNeeded();
        assert.ok(await inViewport(page, await button.boundingBox()), `${tab}: ${await button.textContent()} in view`);
      }
      assert.ok(await inViewport(page, await connect.getByRole('button', { name: 'Close' }).boundingBox()));
    }
    await connect.getByRole('button', { name: 'Close' }).click();
    await connect.waitFor({ state: 'detached' });

    await page.goto(`${journey.server.baseUrl}/settings/account`);
    await page.getByRole('button', { name: 'Import an export' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import an export' });
    await dialog.getByLabel('Export file (.jsonl)').setInputFiles({
      name: 'again.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(await page.evaluate(async () => (await fetch('/api/v1/export?mine=true')).text())),
    });
    await dialog.getByRole('region', { name: 'Import preview' }).waitFor();
    for (const name of ['Import', 'Cancel', 'Close'])
      assert.ok(await inViewport(page, await dialog.getByRole('button', { name }).boundingBox()), `${name} in view`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
}

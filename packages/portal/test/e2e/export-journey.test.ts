import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('export journey');
const { skip } = journey;

/** Clicks what starts a download and returns the downloaded file's name and parsed lines. */
async function download(click: () => Promise<void>): Promise<{ name: string; lines: Record<string, unknown>[] }> {
  const [file] = await Promise.all([journey.page.waitForEvent('download'), click()]);
  const path = await file.path();
  const lines = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { name: file.suggestedFilename(), lines };
}

test('a datapack’s Export button and Settings > Account > Download my data download the entries as JSON Lines', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, page } = journey;
  await signUpFirst(page, server.baseUrl, {
    name: 'Grace',
    email: 'grace@example.com',
    password: 'a long enough passphrase',
    organization: 'Navy',
  });
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Add entry' }).click();
  const add = page.getByRole('dialog', { name: 'Add entry' });
  await add.getByLabel('Title').fill('Nanoseconds');
  await add.getByLabel('Content').fill('A nanosecond is about 30 cm of wire.');
  await add.getByRole('button', { name: 'Add entry' }).click();
  await page.getByText('Nanoseconds').first().waitFor();

  const pack = await download(() => page.getByRole('link', { name: 'Export' }).click());
  assert.match(pack.name, /^cairn-export-personal-\d{4}-\d{2}-\d{2}\.jsonl$/);
  assert.equal(pack.lines[0]!.format, 'cairn-export');
  assert.deepEqual(
    pack.lines.slice(1).map((l) => l.type),
    ['datapack', 'entry', 'end'],
  );
  assert.equal(pack.lines[2]!.title, 'Nanoseconds');
  assert.deepEqual(pack.lines.at(-1), { type: 'end', datapacks: 1, entries: 1, usage: 0 });

  await page.getByRole('link', { name: 'Grace' }).click();
  await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
  const mine = await download(() => page.getByRole('link', { name: 'Download my data' }).click());
  assert.match(mine.name, /^cairn-export-my-data-/);
  const entries = mine.lines.filter((l) => l.type === 'entry');
  assert.deepEqual(
    entries.map((l) => [l.title, l.createdBy]),
    [['Nanoseconds', 'grace@example.com']],
  );
});

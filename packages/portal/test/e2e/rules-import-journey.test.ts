import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { assertAccessible, shot, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('rules import journey');
const { skip } = journey;

// Each test opens the dialog on its own: whichever runs first signs up, so they run in any order or alone.
let signedUp = false;
async function openImportDialog() {
  const { server, page } = journey;
  if (!signedUp) {
    await signUpFirst(page, server.baseUrl, {
      name: 'Grace',
      email: 'grace@example.com',
      password: 'a long enough passphrase',
      organization: 'Navy',
    });
    signedUp = true;
  } else {
    await page.goto(server.baseUrl);
    await page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();
  }
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Import rule files' }).click();
  return page.getByRole('dialog', { name: 'Import rule files' });
}

test('a datapack’s Import rule files previews a repository folder, then imports its rules', {
  skip,
  timeout: 120_000,
}, async () => {
  const { page } = journey;
  const repo = join(mkdtempSync(join(tmpdir(), 'cairn-portal-rules-')), 'ledger');
  mkdirSync(join(repo, '.cursor', 'rules'), { recursive: true });
  writeFileSync(
    join(repo, '.cursor', 'rules', 'sql.mdc'),
    '---\nglobs: "**/*.sql"\n---\n# Bind parameters\n\nNever build SQL from strings.\n',
  );
  writeFileSync(join(repo, 'AGENTS.md'), '# Small commits\n\nOne change per commit.\n');
  writeFileSync(join(repo, 'README.md'), '# Ledger\n');
  const dialog = await openImportDialog();
  await dialog.getByLabel('Choose a folder').setInputFiles(repo);
  await dialog.getByText('3 candidate files.').waitFor();
  assert.equal(await dialog.getByLabel('Project').inputValue(), 'ledger', 'the folder’s name');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await dialog.getByText('Would give: 2 created, 0 updated, 0 unchanged, 1 not mapped.').waitFor();
  assert.ok(await dialog.getByRole('cell', { name: '.cursor/rules/sql.mdc' }).isVisible());
  await dialog.getByRole('button', { name: 'Import' }).click();
  await dialog.getByText('Imported: 2 created').waitFor();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.getByText('Bind parameters').first().waitFor();
  await page.getByText('Small commits').first().waitFor();
});

test('a repository’s .zip (GitHub’s Download ZIP) previews and imports; what it did not read is listed', {
  skip,
  timeout: 120_000,
}, async () => {
  const { page } = journey;
  const zip = zipSync({
    'acme-api-main/': new Uint8Array(),
    'acme-api-main/AGENTS.md': strToU8('# Review checklist\n\nRun the tests before asking for a review.\n'),
    'acme-api-main/.cursor/rules/migrations.mdc': strToU8(
      '---\nglobs: "db/migrations/**"\n---\n# Reversible migrations\n\nEvery migration has a down step.\n',
    ),
    'acme-api-main/README.md': strToU8('# Acme API\n'),
    'acme-api-main/node_modules/left-pad/README.md': strToU8('# left-pad\n'),
    'acme-api-main/../escape.md': strToU8('# Outside\n'),
    'acme-api-main/docs/huge.md': strToU8('a very long rule. '.repeat(20_000)),
  });
  const dialog = await openImportDialog();
  await dialog.getByLabel('Choose a .zip').setInputFiles({
    name: 'acme-api-main.zip',
    mimeType: 'application/zip',
    buffer: Buffer.from(zip),
  });
  await dialog.getByText('3 candidate files.').waitFor();
  assert.equal(await dialog.getByLabel('Project').inputValue(), 'acme-api-main', 'the zip’s top folder');
  const notRead = dialog.getByRole('region', { name: 'Not read' });
  assert.deepEqual(await notRead.getByRole('listitem').allInnerTexts(), [
    'acme-api-main/../escape.md: its name climbs out of the repository (..)',
    'docs/huge.md: larger than 256 KiB, the most the import takes for one file',
  ]);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await dialog.getByText('Would give: 2 created, 0 updated, 0 unchanged, 1 not mapped.').waitFor();
  assert.ok(await dialog.getByRole('cell', { name: '.cursor/rules/migrations.mdc' }).isVisible());
  await shot(page, 'rules-import-zip-preview');
  await assertAccessible(page, 'the rules import dialog with a zip previewed');
  await dialog.getByRole('button', { name: 'Import' }).click();
  await dialog.getByText('Imported: 2 created').waitFor();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.getByText('Reversible migrations').first().waitFor();
  await page.getByText('Review checklist').first().waitFor();
});

test('a file that is not a zip, and a zip bomb, are refused in the dialog with what to do instead', {
  skip,
  timeout: 120_000,
}, async () => {
  const { page } = journey;
  const dialog = await openImportDialog();
  const zipInput = dialog.getByLabel('Choose a .zip');
  await zipInput.setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from('# Notes\n') });
  await dialog
    .getByRole('alert')
    .getByText('This file is not a zip archive: notes.zip. Choose a .zip downloaded from your repository, or a folder.')
    .waitFor();
  assert.ok(await dialog.getByRole('button', { name: 'Preview' }).isDisabled(), 'nothing to preview');

  const bomb = zipSync({
    'bomb/AGENTS.md': strToU8('# A rule\n'),
    'bomb/zeros.md': new Uint8Array(100 * 1024 * 1024),
  });
  assert.ok(bomb.length < 300_000, `${bomb.length} bytes`);
  await zipInput.setInputFiles({ name: 'bomb.zip', mimeType: 'application/zip', buffer: Buffer.from(bomb) });
  await dialog
    .getByRole('alert')
    .getByText(
      'This zip would unpack to 101 MiB, more than the 64 MiB the import reads: bomb.zip. ' +
        'Choose the repository’s folder instead, or a zip of only its rule files.',
    )
    .waitFor();
  assert.ok(await dialog.getByRole('button', { name: 'Preview' }).isDisabled(), 'nothing to preview');
  assert.equal(await dialog.getByText(/candidate files/).count(), 0);
  await shot(page, 'rules-import-zip-refused');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('rules import journey');
const { skip } = journey;

test('a datapack’s Import rule files previews a repository folder, then imports its rules', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, page } = journey;
  const repo = join(mkdtempSync(join(tmpdir(), 'cairn-portal-rules-')), 'ledger');
  mkdirSync(join(repo, '.cursor', 'rules'), { recursive: true });
  writeFileSync(
    join(repo, '.cursor', 'rules', 'sql.mdc'),
    '---\nglobs: "**/*.sql"\n---\n# Bind parameters\n\nNever build SQL from strings.\n',
  );
  writeFileSync(join(repo, 'AGENTS.md'), '# Small commits\n\nOne change per commit.\n');
  writeFileSync(join(repo, 'README.md'), '# Ledger\n');
  await signUpFirst(page, server.baseUrl, {
    name: 'Grace',
    email: 'grace@example.com',
    password: 'a long enough passphrase',
    organization: 'Navy',
  });
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Import rule files' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import rule files' });
  await dialog.getByLabel('Repository folder').setInputFiles(repo);
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

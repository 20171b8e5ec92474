import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('guidance journey');
const { skip } = journey;

test('an entry set to "always" is given with any task; "Replace with a new rule" retires the old one', {
  skip,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl);
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Add entry' }).click();
  const add = page.getByRole('dialog', { name: 'Add entry' });
  await add.getByLabel('Title').fill('Install with npm');
  await add.getByLabel('Content').fill('Run npm ci in every pipeline.');
  await add.getByRole('checkbox', { name: /Always/ }).check();
  await add.getByLabel(/Files/).fill('package.json\n.github/workflows/**');
  await add.getByLabel(/When it is needed/).fill('Adding a dependency or changing how the pipeline installs packages.');
  await add.getByRole('button', { name: 'Add entry' }).click();
  await add.waitFor({ state: 'detached' });

  await page.getByRole('button', { name: /Install with npm/ }).click();
  const view = page.getByRole('dialog', { name: 'Install with npm' });
  await view.getByText(/given with every task; for files package\.json, \.github\/workflows\/\*\*/).waitFor();
  await view.getByText('Needed when: Adding a dependency or changing how the pipeline installs packages.').waitFor();

  // What an agent gets: the rule, for a task about something else, with its reason.
  const store = server.cairn.cairn.store;
  const [old] = (
    await store.rankedEntries({
      datapackIds: (await store.db.selectFrom('datapack').select('id').execute()).map((d) => d.id),
      text: 'npm ci pipeline',
      limit: 5,
    })
  ).map((h) => h.entry);
  assert.deepEqual(old?.applies, {
    always: true,
    files: ['package.json', '.github/workflows/**'],
    projects: [],
    when: 'Adding a dependency or changing how the pipeline installs packages.',
  });
  const asked = await page.evaluate(async () =>
    (await fetch('/api/v1/guidance?task=write%20the%20release%20notes')).json(),
  );
  const item = asked.levels
    .flatMap((l: { items: unknown[] }) => l.items)
    .find((i: { entry: { title: string } }) => i.entry.title === 'Install with npm');
  assert.equal(item?.reason, 'always');

  await view.getByRole('button', { name: 'Replace with a new rule' }).click();
  const replace = page.getByRole('dialog', { name: 'Replace with a new rule' });
  await replace.getByText(/Saving replaces “Install with npm”/).waitFor();
  assert.equal(
    await replace.getByRole('checkbox', { name: /Always/ }).isChecked(),
    true,
    'the new rule starts from the old one',
  );
  assert.equal(
    await replace.getByLabel(/When it is needed/).inputValue(),
    'Adding a dependency or changing how the pipeline installs packages.',
  );
  await replace.getByLabel('Title').fill('Install with pnpm');
  await replace.getByLabel('Content').fill('Run pnpm install --frozen-lockfile in every pipeline.');
  await replace.getByRole('button', { name: 'Save and replace' }).click();
  await view.getByRole('status').getByRole('link', { name: 'Install with pnpm' }).waitFor();
  assert.equal(await view.getByRole('button', { name: 'Replace with a new rule' }).count(), 0);

  const after = await store.getEntry(old!.id);
  assert.ok(after?.replacedBy, 'the old rule is marked replaced');
  const again = await page.evaluate(async () =>
    (await fetch('/api/v1/guidance?task=install%20with%20npm%20in%20the%20pipeline')).json(),
  );
  const titles = again.levels.flatMap((l: { items: { entry: { title: string } }[] }) =>
    l.items.map((i) => i.entry.title),
  );
  assert.ok(titles.includes('Install with pnpm') && !titles.includes('Install with npm'), titles.join(', '));
  assert.deepEqual(b.errors, []);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAccessible, shot, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('datapacks journey');
const { skip } = journey;

test('sign up → personal datapack → team → team datapack → add and edit an entry', { skip }, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl, undefined, 'sign-up');
  const personal = page.getByRole('link', { name: 'Personal', exact: true });
  await personal.waitFor();
  await shot(page, 'datapacks');

  // A team datapack needs a team: create one in Organization settings (and join it).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organization' }).click();
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  await page.getByRole('cell', { name: 'ada@example.com' }).waitFor();
  await page.getByLabel('Team name').fill('Platform');
  assert.equal(await page.getByLabel('Add me to this team').isChecked(), true);
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.getByRole('list', { name: 'Members of Platform' }).getByText('Ada Lovelace').waitFor();
  await page.getByRole('button', { name: 'Create invite link' }).click();
  const invite = await page.getByLabel('Invite link', { exact: true }).inputValue();
  assert.match(invite, new RegExp(`^${server.baseUrl}/signup\\?invite=`));
  await shot(page, 'organization', { fullPage: true });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datapacks' }).click();
  await page.getByRole('button', { name: 'New datapack' }).click();
  const create = page.getByRole('dialog', { name: 'New datapack' });
  await create.getByLabel('Name').fill('Platform standards');
  await create.getByLabel('A team').check();
  await create.getByLabel('Team', { exact: true }).selectOption({ label: 'Platform' });
  await create.getByLabel(/Description/).fill('How the platform team builds services');
  await shot(page, 'datapack-create');
  await create.getByRole('button', { name: 'Create datapack' }).click();
  await page.getByRole('heading', { name: 'Platform standards', level: 1 }).waitFor();
  await page.getByText('No entries yet — connect a client').waitFor();
  await page.getByText('Team · Platform').waitFor();

  await page.getByRole('button', { name: 'Add entry' }).click();
  const add = page.getByRole('dialog', { name: 'Add entry' });
  await add.getByLabel('Title').fill('Services log in JSON');
  await add.getByLabel('Kind').selectOption('standard');
  await add.getByLabel('Content').fill('Every service writes one JSON object per log line, with level, msg and time.');
  await add.getByLabel(/Tags/).fill('logging, services');
  await shot(page, 'entry-add');
  await assertAccessible(page, 'the Add entry dialog');
  await add.getByRole('button', { name: 'Add entry' }).click();
  await add.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: /Services log in JSON/ }).click();

  const view = page.getByRole('dialog', { name: 'Services log in JSON' });
  await view.getByText('version 1').waitFor();
  // Each entry has an address: shown in the bar while it is open, and opening it afresh shows the same entry.
  const address = new URL(page.url());
  assert.match(address.pathname, /^\/datapacks\/[^/]+\/entries\/[^/]+$/);
  await page.goto(address.href);
  await view.getByText('version 1').waitFor();
  await view.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit entry' });
  // Content is Markdown, rendered safely: formatting shows, raw HTML stays text, script links are refused.
  await edit
    .getByLabel('Content')
    .fill(
      'Every service writes **one JSON object** per log line, with `level`, msg, time and trace_id.\n\n<img src=x onerror="window.pwned=1">\n\n[runbook](javascript:window.pwned=2)',
    );
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await view.getByText('version 2').waitFor();
  await view
    .getByText(/trace_id/)
    .first()
    .waitFor();
  const content = view.locator('.entry-content').first();
  assert.equal(await content.locator('strong').textContent(), 'one JSON object');
  assert.equal(await content.locator('code').textContent(), 'level');
  assert.equal(await content.locator('img, script, a[href^="javascript"]').count(), 0);
  await content.getByText('<img src=x onerror="window.pwned=1">').waitFor();
  assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
  const history = view.getByRole('region', { name: 'Version history' });
  assert.equal(await history.getByRole('listitem').count(), 2);
  await history.getByText('v1').click();
  await shot(page, 'entry-view');
  await assertAccessible(page, 'an entry with its history');
  await view.getByRole('button', { name: 'Close' }).click();

  // Search finds it; the list shows the new version.
  await page.getByRole('searchbox', { name: 'Search entries' }).fill('trace_id');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page
    .getByRole('list', { name: 'Search results' })
    .getByRole('button', { name: /Services log in JSON/ })
    .waitFor();
  await page.getByRole('button', { name: 'Clear' }).click();
  await page
    .getByRole('list', { name: 'Entries' })
    .getByText(/v2 · you/)
    .waitFor();
  await shot(page, 'datapack');
  await assertAccessible(page, "a datapack's page");

  // Search across every datapack: kind and datapack filters, and a tag on a result narrows to it.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click();
  await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
  await page.getByRole('searchbox', { name: 'Search all datapacks' }).fill('json log line');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const found = page.getByRole('list', { name: 'Search results' });
  await found.getByRole('button', { name: 'Services log in JSON' }).waitFor();
  await found.getByRole('link', { name: 'Platform standards' }).waitFor();
  await found.getByRole('button', { name: 'Only entries tagged logging' }).click();
  await page
    .getByRole('list', { name: 'Tag filters' })
    .getByRole('button', { name: 'Remove tag filter logging' })
    .waitFor();
  assert.match(page.url(), /\/search\?q=json\+log\+line&tag=logging$/);
  await found.getByRole('button', { name: 'Services log in JSON' }).waitFor();
  await shot(page, 'search');
  await assertAccessible(page, 'the Search page');
  await page.getByRole('combobox', { name: 'Scope' }).selectOption('team');
  await found.getByRole('button', { name: 'Services log in JSON' }).waitFor();
  await page.getByRole('combobox', { name: 'Author' }).selectOption({ label: 'Ada Lovelace' });
  await found.getByRole('button', { name: 'Services log in JSON' }).waitFor();
  assert.match(page.url(), /scope=team&author=/);
  await page.getByRole('combobox', { name: 'Kind' }).selectOption('policy');
  await page.getByText('Nothing found').waitFor();
  await page.goBack();
  await page.goBack();
  await page.goBack();
  await found.getByRole('button', { name: 'Services log in JSON' }).click();
  const opened = page.getByRole('dialog', { name: 'Services log in JSON' });
  await opened.getByRole('link', { name: 'All entries tagged services' }).click();
  assert.match(page.url(), /\/search\?tag=services$/);
  await found.getByRole('button', { name: 'Services log in JSON' }).waitFor();
  await page.goto(`${page.url().split('/search')[0]}/datapacks`);

  // Back on the list: scope, count and last change.
  await page.getByRole('link', { name: 'Datapacks' }).first().click();
  const row = page.getByRole('row', { name: /Platform standards/ });
  await row.getByRole('cell', { name: '1', exact: true }).waitFor();
  await row.getByText('Team · Platform').waitFor();
  await shot(page, 'datapacks-filled');
  await assertAccessible(page, 'the Datapacks list');

  // Narrow screen: the same list, stacked.
  await page.setViewportSize({ width: 390, height: 780 });
  await shot(page, 'datapacks-narrow');
  await page.setViewportSize({ width: 1200, height: 820 });

  // Rename and describe the datapack; delete it, find it under Deleted datapacks, restore it whole.
  await page.getByRole('link', { name: 'Platform standards' }).click();
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Datapack settings' });
  await settings.getByLabel('Name').fill('Platform rules');
  await settings.getByLabel('Description').fill('How the platform team builds services');
  await settings.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Platform rules', level: 1 }).waitFor();
  await page.getByText(/How the platform team builds services/).waitFor();
  await page.getByRole('button', { name: 'Delete datapack' }).click();
  await page.getByRole('alert').getByRole('button', { name: 'Delete datapack' }).click();
  await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  await shot(page, 'trash-datapack');
  await assertAccessible(page, 'the Trash');
  await page.getByRole('button', { name: 'Restore datapack Platform rules' }).click();
  await page.getByRole('status').getByText('Restored “Platform rules”.').waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datapacks' }).click();
  await page
    .getByRole('row', { name: /Platform rules/ })
    .getByRole('cell', { name: '1', exact: true })
    .waitFor();

  // Delete the entry (with confirmation).
  await page.getByRole('link', { name: 'Platform rules' }).click();
  await page.getByRole('button', { name: /Services log in JSON/ }).click();
  await view.getByRole('button', { name: 'Delete' }).click();
  await view.getByRole('button', { name: 'Delete entry' }).click();
  await page.getByText('No entries yet — connect a client').waitFor();

  // Sign out, then in again.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('alert')
    .getByText(/Check both and try again/)
    .waitFor();
  await shot(page, 'sign-in-error');
  await assertAccessible(page, 'the sign-in page with an error');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Datapacks', level: 1 }).waitFor();

  assert.deepEqual(b.errors, []);
});

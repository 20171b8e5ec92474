// A search with a filter and no words lists the entries passing it, newest first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAccess } from '../../../server/src/domain/access.js';
import { saveEntry } from '../../../server/src/domain/entries.js';
import { signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('filtered search journey');
const { skip } = journey;

test('choosing a kind with no words lists that kind newest first', { skip, timeout: 120_000 }, async () => {
  const { server, page } = journey;
  await signUpFirst(page, server.baseUrl);
  const cairn = server.cairn.cairn;
  const owner = (await cairn.store.findUserByEmail('ada@example.com'))!;
  const access = await loadAccess(cairn.domain, { userId: owner.id, client: 'test', via: 'cli', scope: 'read-write' });
  const pause = () => new Promise((r) => setTimeout(r, 15));
  await saveEntry(cairn.domain, access, { kind: 'policy', title: 'Older policy', content: 'Indent with tabs.' });
  await pause();
  await saveEntry(cairn.domain, access, { kind: 'note', title: 'Some note', content: 'Just a note.' });
  await pause();
  const newer = await saveEntry(cairn.domain, access, {
    kind: 'policy',
    title: 'Newer policy',
    content: 'Review every change.',
  });
  await pause();
  await saveEntry(cairn.domain, access, {
    kind: 'standard',
    title: 'Migrations standard',
    content: 'Every migration can be rolled back.',
    applies: { files: ['migrations/**'] },
  });
  await pause();
  await saveEntry(cairn.domain, access, {
    kind: 'policy',
    title: 'Newest review policy',
    content: 'Two reviews for every change to main.',
    supersedes: [newer.entry.id],
  });

  await page.goto(`${server.baseUrl}/search`);
  await page.getByText('Type a few words').waitFor();
  await page.getByLabel('Kind').selectOption('policy');
  const list = page.getByRole('list', { name: 'Search results' });
  await list.waitFor();
  await page.getByText('newest first').waitFor();
  const text = (await list.textContent()) ?? '';
  assert.ok(text.includes('Newest review policy') && text.includes('Older policy'), text);
  assert.ok(text.indexOf('Newest review policy') < text.indexOf('Older policy'), `newest first: ${text}`);
  assert.ok(!text.includes('Newer policy'), `a replaced rule is left out: ${text}`);
  assert.ok(!text.includes('Some note'), text);
  assert.ok(!text.includes('Migrations standard'), text);

  // The datapack's entry list says at a glance when agents get each rule, and which one was replaced.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datapacks' }).click();
  await page.getByRole('link', { name: 'Personal' }).first().click();
  const entries = page.getByRole('list', { name: 'Entries' });
  await entries.waitFor();
  const row = (title: string) => entries.getByRole('listitem').filter({ hasText: title });
  await row('Migrations standard').getByText('Files', { exact: true }).waitFor();
  assert.equal(
    await row('Migrations standard').getByText('Files', { exact: true }).getAttribute('title'),
    'When a task touches migrations/**',
  );
  await row('Newer policy').getByText('Replaced', { exact: true }).waitFor();
  await row('Older policy').getByText('Topic', { exact: true }).waitFor();
  assert.equal(await row('Some note').getByText('Topic', { exact: true }).count(), 0, 'a note is no rule');
  assert.equal(await row('Older policy').getByText('Replaced', { exact: true }).count(), 0);
});

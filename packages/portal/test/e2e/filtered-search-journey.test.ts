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
  await saveEntry(cairn.domain, access, { kind: 'policy', title: 'Newer policy', content: 'Review every change.' });

  await page.goto(`${server.baseUrl}/search`);
  await page.getByText('Type a few words').waitFor();
  await page.getByLabel('Kind').selectOption('policy');
  const list = page.getByRole('list', { name: 'Search results' });
  await list.waitFor();
  await page.getByText('newest first').waitFor();
  const text = (await list.textContent()) ?? '';
  assert.ok(text.includes('Newer policy') && text.includes('Older policy'), text);
  assert.ok(text.indexOf('Newer policy') < text.indexOf('Older policy'), `newest first: ${text}`);
  assert.ok(!text.includes('Some note'), text);
});

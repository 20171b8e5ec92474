import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAccessible, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('replaced rules journey');
const { skip } = journey;

/** The titles get_guidance gives for a task, as the signed-in person. */
const guidanceTitles = (task: string) =>
  journey.page.evaluate(async (t) => {
    const g = await (await fetch(`/api/v1/guidance?task=${encodeURIComponent(t)}`)).json();
    return g.levels.flatMap((l: { items: { entry: { title: string } }[] }) => l.items.map((i) => i.entry.title));
  }, task);

test('Replaced rules: the successor by title with a link, and Reinstate makes the rule leave the list and guidance again', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl);
  // Two rules, the second replacing the first (as "Replace with a new rule" or an agent's supersedes does).
  // (No named functions inside: the test's compiler would wrap them in a helper the page does not have.)
  const ids = await page.evaluate(async () => {
    const saved: string[] = [];
    for (const body of [
      {
        kind: 'standard',
        title: 'Install with npm',
        content: 'Run npm ci in every pipeline.',
        applies: { always: true },
      },
      {
        kind: 'standard',
        title: 'Install with pnpm',
        content: 'Run pnpm install --frozen-lockfile in every pipeline.',
      },
    ]) {
      const r = await fetch('/api/v1/entries', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, ...(saved.length && { supersedes: saved }) }),
      });
      if (r.status !== 201) throw new Error(`${r.status} ${await r.text()}`);
      saved.push((await r.json()).entry.id);
    }
    return saved;
  });
  assert.ok(!(await guidanceTitles('write the release notes')).includes('Install with npm'), 'replaced: not given');

  // From the datapack page to its replaced rules.
  await page.getByRole('link', { name: 'Personal', exact: true }).click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'Replaced rules' }).last().click();
  await page.getByRole('heading', { name: 'Replaced rules', level: 1 }).waitFor();
  const list = page.getByRole('list', { name: 'Replaced rules' });
  const row = list.getByRole('listitem').filter({ hasText: 'Install with npm' });
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', /in Personal · replaced .+ by Install with pnpm/);
  for (const id of ids) assert.ok(!(await page.locator('main').textContent())?.includes(id), 'no raw ids');
  await assertAccessible(page, 'the Replaced rules page');

  // The successor by its title, linked to its window.
  await row.getByRole('link', { name: 'Install with pnpm' }).click();
  const successor = page.getByRole('dialog', { name: 'Install with pnpm' });
  await successor.getByText('Run pnpm install --frozen-lockfile in every pipeline.').first().waitFor();
  await successor.getByRole('button', { name: 'Close' }).click();

  // The old rule's own window names its successor by title too.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Replaced rules' }).click();
  await list.getByRole('link', { name: 'Install with npm' }).click();
  const old = page.getByRole('dialog', { name: 'Install with npm' });
  await old.getByRole('status').getByRole('link', { name: 'Install with pnpm' }).waitFor();
  assert.ok(!(await old.textContent())?.includes(ids[1]!), 'no raw id in the rule’s window');
  await old.getByRole('button', { name: 'Close' }).click();

  // Reinstate, confirmed first: the row leaves the list, and agents get the rule again.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Replaced rules' }).click();
  await list.getByRole('button', { name: 'Reinstate Install with npm' }).click();
  await list
    .getByRole('group', { name: 'Reinstate Install with npm?' })
    .getByRole('button', { name: 'Yes, reinstate' })
    .click();
  await page.getByRole('status').getByText('Reinstated “Install with npm”: agents get it again.').waitFor();
  await page.getByText('No replaced rules').waitFor();
  assert.ok((await guidanceTitles('write the release notes')).includes('Install with npm'), 'given again');
  assert.deepEqual(b.errors, []);
});

test('Expired rules: listed below the replaced ones with their date, and Renew gives the rule to agents again', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, browser: b, page } = journey;
  await page.goto(`${server.baseUrl}/rules/replaced`);
  await page.getByRole('heading', { name: 'Replaced rules', level: 1 }).waitFor();
  const today = new Date().toISOString().slice(0, 10);
  await page.evaluate(async (expires) => {
    const r = await fetch('/api/v1/entries', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'standard',
        title: 'Freeze deploys for the audit',
        content: 'No deploys until the audit is done.',
        applies: { always: true },
        expires,
      }),
    });
    if (r.status !== 201) throw new Error(`${r.status} ${await r.text()}`);
  }, today);
  assert.ok((await guidanceTitles('write the release notes')).includes('Freeze deploys for the audit'), 'given today');

  // Two days on, the rule has expired: agents no longer get it, and the page lists it.
  const domain = server.cairn.cairn.domain;
  const realNow = domain.now;
  domain.now = () => new Date(Date.now() + 2 * 86_400_000).toISOString();
  try {
    assert.ok(!(await guidanceTitles('write the release notes')).includes('Freeze deploys for the audit'), 'expired');
    await page.reload();
    const list = page.getByRole('list', { name: 'Expired rules' });
    const row = list.getByRole('listitem').filter({ hasText: 'Freeze deploys for the audit' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', new RegExp(`in Personal · expired after ${today}`));
    await assertAccessible(page, 'the Replaced rules page with an expired rule');

    await list.getByRole('button', { name: 'Renew Freeze deploys for the audit' }).click();
    await list
      .getByRole('group', { name: 'Renew Freeze deploys for the audit?' })
      .getByRole('button', { name: 'Yes, renew' })
      .click();
    await page.getByRole('status').getByText('Renewed “Freeze deploys for the audit”: agents get it again.').waitFor();
    await page.getByText('No expired rules').waitFor();
    assert.ok((await guidanceTitles('write the release notes')).includes('Freeze deploys for the audit'), 'renewed');
  } finally {
    domain.now = realNow;
  }
  assert.deepEqual(b.errors, []);
});

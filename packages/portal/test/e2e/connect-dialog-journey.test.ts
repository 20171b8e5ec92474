import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestCairn } from '../../../server/src/testing/test-cairn.js';
import { assertAccessible, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const journey = portalJourney('Connect dialog journey', { clipboard: true });
const { skip } = journey;

/** What has focus, described as a person would find it: its accessible label, text or value. */
const focused = () =>
  journey.page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return 'body';
    const labelled = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : undefined;
    return `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? labelled ?? el.textContent?.trim() ?? ''}`;
  });

/** The key shown in Cursor's Manual snippet, or undefined while it holds the placeholder. */
async function shownKey(): Promise<string | undefined> {
  const text = await journey.page
    .getByRole('dialog', { name: 'Connect a client' })
    .getByLabel(/^Entry in /)
    .textContent();
  return /cairn_tkn_\w+/.exec(text ?? '')?.[0];
}

test('Connect from a datapack page: first field focused, accessible tabs, a Manual key that survives switching and is not lost unasked', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, browser: b, page } = journey;
  await signUpFirst(page, server.baseUrl);
  await page.getByRole('link', { name: 'Personal' }).first().click();
  await page.getByRole('heading', { name: 'Personal', level: 1 }).waitFor();

  // Reachable from the datapack's own page; focus lands on the first field, not the ×.
  const opener = page.getByRole('button', { name: 'Connect a client' }).first();
  await opener.click();
  const connect = page.getByRole('dialog', { name: 'Connect a client' });
  await connect.waitFor();
  assert.equal(await focused(), 'input:MCP server URL');
  // It opens on Claude Code, the client most people connect first.
  assert.equal(await connect.getByRole('radio', { name: 'Claude Code' }).isChecked(), true);

  // The tablist holds tabs only (the System select sits beside it), and headings never skip a level.
  const structure = await page.evaluate(() => {
    const list = document.querySelector('dialog [role=tablist]')!;
    const notTabs = [...list.children]
      .filter((c) => c.getAttribute('role') !== 'tab')
      .map((c) => c.outerHTML.slice(0, 60));
    const controls = list.querySelectorAll('input, select, textarea, [role=combobox], [role=listbox]').length;
    const levels = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
      .filter((h) => (h as HTMLElement).offsetParent !== null || h.closest('dialog[open]'))
      .map((h) => Number(h.tagName[1]));
    return { notTabs, controls, levels };
  });
  assert.deepEqual(structure.notTabs, []);
  assert.equal(structure.controls, 0);
  assert.equal(structure.levels[0], 1);
  for (let i = 1; i < structure.levels.length; i++)
    assert.ok(structure.levels[i]! <= structure.levels[i - 1]! + 1, `heading levels ${structure.levels.join(',')}`);
  assert.ok(structure.levels.includes(3), 'the dialog has its sub-headings');
  await connect.getByRole('combobox', { name: 'System' }).selectOption({ label: 'Linux' });
  await assertAccessible(page, 'the Connect dialog, Automated');

  // Automatic mode: a checkbox where the client has it, which adds --auto to the shown command; no word of skills for Claude Desktop.
  await connect.getByRole('radio', { name: 'Claude Code' }).check();
  await connect.getByRole('button', { name: 'Create installer command' }).click();
  const shown = () => connect.getByLabel('Installer command', { exact: true }).textContent();
  assert.doesNotMatch((await shown())!, / --auto /);
  await connect.getByRole('checkbox', { name: /Automatic mode/ }).check();
  assert.match(
    (await shown())!,
    /^npx -y http:\/\/\S+\/install\/cairn-mcp-installer\.tgz --client claude-code --url \S+ --auto --setup-code \S+$/,
  );
  await assertAccessible(page, 'the Connect dialog, Automated with automatic mode');
  // The removal command has its own Copy button, and copies exactly what is shown.
  await connect.getByRole('button', { name: 'Copy removal command' }).click();
  const removal = (await connect.locator('.verify-remove code').textContent())!;
  assert.match(removal, /--client claude-code\b.*--uninstall/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), removal);
  await connect.getByRole('radio', { name: 'Claude Desktop' }).check();
  assert.equal(await connect.getByRole('checkbox', { name: /Automatic mode/ }).count(), 0);
  // (Its removal note may still name an imported skill bundle, as the spec's uninstall rule has it.)
  assert.doesNotMatch(
    (await connect.getByRole('tabpanel').locator('.panel-body > p').first().textContent())!,
    /skill|capture|automatic mode/i,
  );
  await connect.getByRole('radio', { name: 'Cursor' }).check();

  // A key generated for Cursor in the Manual tab survives a switch of client and of tab.
  await connect.getByRole('tab', { name: 'Manual (API key)' }).click();
  assert.equal(await shownKey(), undefined);
  await connect.getByLabel('Key name').fill('Cursor on the test box');
  await connect.getByRole('button', { name: 'Generate API key' }).click();
  await connect.getByText(/Your new key is in the snippet below/).waitFor();
  const key = (await shownKey())!;
  assert.match(key, /^cairn_tkn_/);
  await connect.getByRole('radio', { name: 'Claude Code' }).check();
  await connect.getByRole('button', { name: 'Generate API key' }).waitFor();
  await connect.getByRole('tab', { name: 'OAuth' }).click();
  await connect.getByRole('radio', { name: 'Cursor' }).check();
  await assertAccessible(page, 'the Connect dialog, OAuth');
  await connect.getByRole('tab', { name: 'Manual (API key)' }).click();
  assert.equal(await shownKey(), key, 'the same key is still shown');
  await assertAccessible(page, 'the Connect dialog, Manual with a key');
  // Manual steps: Claude Code's step does not repeat the command with <API_KEY> above the snippet;
  // Claude Desktop's names the file that Edit Config opens.
  const steps = () => connect.getByRole('tabpanel').locator('ol.steps').textContent();
  await connect.getByRole('radio', { name: 'Claude Code' }).check();
  assert.match((await steps())!, /Run the command below\./);
  assert.doesNotMatch((await steps())!, /API_KEY/);
  await connect.getByRole('radio', { name: 'Claude Desktop' }).check();
  assert.match((await steps())!, /Edit Config: it opens \S*Claude\/claude_desktop_config\.json/);
  await connect.getByRole('radio', { name: 'Cursor' }).check();
  assert.equal(await shownKey(), key);

  // Escape with the key not copied asks first; Keep returns to the same key.
  await page.keyboard.press('Escape');
  const unsaved = page.getByRole('alertdialog', { name: "You haven't saved this key" });
  await unsaved.getByText(/Cairn cannot show it again/).waitFor();
  assert.equal(await focused(), 'button:Keep');
  await unsaved.getByRole('button', { name: 'Keep' }).click();
  await unsaved.waitFor({ state: 'detached' });
  assert.equal(await shownKey(), key);

  // A click on the backdrop asks too.
  await page.mouse.click(4, 4);
  await unsaved.waitFor();
  await unsaved.getByRole('button', { name: 'Keep' }).click();
  await unsaved.waitFor({ state: 'detached' });
  assert.ok(await connect.isVisible());

  // The × asks; Discard closes, focus goes back to the button that opened the dialog, and the key stays valid.
  await connect.getByRole('button', { name: 'Close' }).click();
  await unsaved.getByRole('button', { name: 'Discard' }).click();
  await connect.waitFor({ state: 'detached' });
  assert.equal(await focused(), 'button:Connect a client');
  const listed = await page.evaluate(
    async () =>
      ((await (await fetch('/api/v1/keys')).json()) as { keys: { name: string; revokedAt: string | null }[] }).keys,
  );
  assert.deepEqual(
    listed.map((k) => [k.name, k.revokedAt]),
    [['Cursor on the test box', null]],
  );

  // Once copied, the key is saved: Escape closes at once.
  await opener.click();
  await connect.getByRole('radio', { name: 'Cursor' }).check();
  await connect.getByRole('tab', { name: 'Manual (API key)' }).click();
  await connect.getByRole('button', { name: 'Generate API key' }).click();
  const second = (await (async () => {
    await connect.getByText(/Your new key is in the snippet below/).waitFor();
    return shownKey();
  })())!;
  assert.notEqual(second, key, 'a new dialog starts without the old key');
  await connect.getByRole('button', { name: /^Copy entry in / }).click();
  assert.ok((await page.evaluate(() => navigator.clipboard.readText())).includes(second));
  await page.keyboard.press('Escape');
  await connect.waitFor({ state: 'detached' });
  assert.equal(await unsaved.count(), 0);
  assert.equal(await focused(), 'button:Connect a client');

  // Other dialogs: the first field has focus (Add entry's first field), and focus returns on Cancel.
  await page.getByRole('button', { name: 'Add entry' }).click();
  const add = page.getByRole('dialog').first();
  await add.waitFor();
  assert.doesNotMatch(await focused(), /^button:Close$/);
  assert.match(await focused(), /^(input|select|textarea):/);
  await page.keyboard.press('Escape');
  await add.waitFor({ state: 'detached' });
  assert.equal(await focused(), 'button:Add entry');

  assert.deepEqual(b.errors, []);
});

test('with CAIRN_OAUTH_ALLOW_LOOPBACK=false the OAuth tab sends local-callback clients to an API key, and keeps OAuth for the others', {
  skip,
  timeout: 120_000,
}, async () => {
  const { browser: b } = journey;
  const strict = await startTestCairn({ env: { CAIRN_OAUTH_ALLOW_LOOPBACK: 'false' } });
  const p = await b.context.newPage();
  try {
    await signUpFirst(p, strict.baseUrl, {
      name: 'Mary Jackson',
      email: 'mary@example.com',
      password: 'a long enough secret',
      organization: 'Wind Tunnel',
    });
    await p.getByRole('button', { name: 'Connect a client' }).first().click();
    const connect = p.getByRole('dialog', { name: 'Connect a client' });
    await connect.getByRole('radio', { name: 'Cursor' }).check();
    await connect.getByRole('tab', { name: 'OAuth' }).click();
    assert.deepEqual(
      JSON.parse((await connect.getByLabel(/^Entry in /).textContent())!),
      { mcpServers: { cairn: { url: strict.mcpUrl } } },
      'Cursor returns to its own app, not a local callback',
    );
    await connect.getByRole('radio', { name: 'Kiro (IDE and CLI)' }).check();
    await connect.getByText(/local callback \(localhost\), and this Cairn's operator has turned those off/).waitFor();
    assert.equal(await connect.getByLabel(/^Entry in /).count(), 0);
    await connect.getByRole('button', { name: 'Open the Manual (API key) tab' }).click();
    assert.equal(await connect.getByRole('tab', { name: 'Manual (API key)' }).getAttribute('aria-selected'), 'true');
  } finally {
    await p.close();
    await strict.close();
  }
});

test('Codex’s OAuth tab says the server must reach chatgpt.com or have its document pinned, and a sign-in that cannot reach the vendor lands on an accessible page', {
  skip,
  timeout: 120_000,
}, async () => {
  const { browser: b } = journey;
  const own = await startTestCairn();
  const p = await b.context.newPage();
  try {
    await signUpFirst(p, own.baseUrl, {
      name: 'Dorothy Vaughan',
      email: 'dorothy@example.com',
      password: 'a long enough secret',
      organization: 'West Computing',
    });
    await p.getByRole('button', { name: 'Connect a client' }).first().click();
    const connect = p.getByRole('dialog', { name: 'Connect a client' });
    await connect.getByRole('radio', { name: 'Codex' }).check();
    await connect.getByRole('tab', { name: 'OAuth' }).click();
    await connect
      .getByText(
        /must be able to reach chatgpt\.com, or its operator must pin that document with CAIRN_OAUTH_PINNED_CLIENTS/,
      )
      .waitFor();
    assert.match((await connect.getByLabel('Command').first().textContent()) ?? '', /codex mcp add cairn --url /);

    // What the browser shows when Codex's sign-in names a document on a host this Cairn cannot reach.
    const authorize = new URL(`${own.baseUrl}/api/auth/oauth2/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: 'https://codex.invalid/oauth/client.json',
      redirect_uri: 'http://127.0.0.1:1455/auth/callback',
      scope: 'mcp',
      state: 's',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(k, v);
    const answer = await p.goto(authorize.toString());
    assert.equal(answer?.status(), 502);
    await p.getByRole('heading', { name: 'Cairn could not sign this app in', level: 1 }).waitFor();
    assert.equal(await p.locator('html').getAttribute('lang'), 'en');
    assert.match(await p.title(), /Cairn/);
    await p
      .getByText(/could not reach codex\.invalid/)
      .first()
      .waitFor();
    await assertAccessible(p, 'the sign-in failure page');
  } finally {
    await p.close();
    await own.close();
  }
});

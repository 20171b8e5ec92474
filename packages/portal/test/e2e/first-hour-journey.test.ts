// A newcomer's first hour on a fresh data folder: sign up, Connect > Automated, run exactly the shown
// command in a fresh home, see the dialog report the client connected, use it, then remove it with the
// shown removal command. The README's screenshots are taken here (shot(…, { readme: true })), refreshed by `npm run screenshots`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { assertAccessible, shot, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const run = promisify(execFile);
const journey = portalJourney('first-hour journey', { tempDir: 'cairn-portal-home-' });
const { skip } = journey;

/** Runs a command exactly as the portal shows it (it has no quoting: split on spaces), in the fresh home. */
async function runShown(command: string): Promise<string> {
  const home = journey.dir;
  const [program, ...args] = command.split(' ');
  assert.equal(program, 'npx');
  const { stdout } = await run(program!, [...args, '--yes'], {
    cwd: home,
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      npm_config_cache: join(home, '.npm'),
      npm_config_update_notifier: 'false',
    },
  });
  return stdout;
}

test('the first hour: sign up, connect Cursor with the shown command, see it connected, use it, remove it', {
  skip,
  timeout: 240_000,
}, async () => {
  const { server, browser: b, page, dir: home } = journey;
  // A signed-out visit logs nothing in the console: no 401 from asking who is signed in.
  const signedOutErrors: string[] = [];
  const onConsole = (m: { type(): string; text(): string }) => {
    if (m.type() === 'error') signedOutErrors.push(m.text());
  };
  page.on('console', onConsole);
  await page.goto(server.baseUrl);
  await page.getByRole('heading', { name: 'Create your Cairn account' }).waitFor();
  page.off('console', onConsole);
  assert.deepEqual(signedOutErrors, []);
  await signUpFirst(
    page,
    server.baseUrl,
    {
      name: 'Katherine Johnson',
      email: 'katherine@example.com',
      password: 'a long enough secret',
      organization: 'Trajectories',
    },
    'sign-up',
  );
  await shot(page, 'datapacks', { readme: true });
  await page.getByRole('button', { name: 'Connect a client' }).first().click();
  const connect = page.getByRole('dialog', { name: 'Connect a client' });
  await connect.getByRole('radio', { name: 'Cursor' }).check();
  await connect.getByRole('tab', { name: 'Automated' }).click();
  await connect.getByRole('button', { name: 'Create installer command' }).click();
  const command = (await connect.getByLabel('Installer command', { exact: true }).textContent())!.trim();
  // Unless the operator declares the registry package published, only this server's own copy is offered:
  // an unpublished name on the registry could be taken by anyone, who would then receive the setup code.
  assert.match(command, new RegExp(`^npx -y ${server.baseUrl}/install/cairn-mcp-installer\\.tgz --client cursor `));
  assert.equal(await connect.getByLabel('Installer command (from this server)', { exact: true }).count(), 0);
  const removal = (await connect.getByText(/--uninstall/).textContent())!.trim();
  await shot(page, 'connect-automated', { readme: true });
  await assertAccessible(page, 'the Connect dialog for Cursor');

  // Run it exactly as shown, where npx can only fetch the installer from this Cairn.
  assert.match(await runShown(command), /Connected as Katherine Johnson/);
  const file = join(home, '.cursor', 'mcp.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const entry = JSON.parse(readFileSync(file, 'utf8')).mcpServers.cairn as {
    url: string;
    headers: Record<string, string>;
  };
  assert.equal(entry.url, server.mcpUrl);
  const status = connect.getByRole('status').filter({ hasText: /Waiting for your client|connected as/ });
  await status.getByText(/The installer's check connected as Katherine Johnson/).waitFor({ timeout: 15_000 });

  // Cursor starts with the entry the installer wrote (its URL and headers, nothing else), and the dialog says so.
  const cursor = new Client({ name: 'cursor-vscode', title: 'Cursor', version: '1.7.2' });
  await cursor.connect(
    new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
  );
  await cursor.callTool({ name: 'list_datapacks', arguments: {} });
  await status
    .getByText(/✓ Cursor 1\.7\.2 connected as Katherine Johnson — \d+ datapacks/)
    .waitFor({ timeout: 15_000 });
  await shot(page, 'connect-connected', { readme: true });
  await cursor.callTool({
    name: 'save_entry',
    arguments: {
      kind: 'preference',
      title: 'Use pnpm',
      content: 'Always use **pnpm** for JavaScript projects, never npm or yarn.',
      tags: ['javascript', 'tooling'],
    },
  });
  await cursor.close();

  // What Cursor saved is in the portal, with who and which client saved it.
  await connect.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('link', { name: 'Personal' }).first().click();
  await page.getByRole('button', { name: /Use pnpm/ }).click();
  const saved = page.getByRole('dialog', { name: 'Use pnpm' });
  await saved
    .getByText(/from Cursor 1\.7\.2/)
    .first()
    .waitFor();
  await shot(page, 'entry-from-cursor', { readme: true });
  await saved.getByRole('button', { name: 'Close' }).click();

  // The key minted for the installer shows up in Settings > API Keys, named after the client, last used by Cursor.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('row', { name: /cursor on .*Cursor 1\.7\.2/ }).waitFor();
  await shot(page, 'api-keys', { readme: true });

  // The shown removal command, run as shown, takes the entry out again.
  await runShown(removal);
  // The installer created this file, so uninstall removes it with the entry (packages/installer/README.md).
  assert.equal(
    existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).mcpServers?.cairn : undefined,
    undefined,
    'the removal command removed the entry',
  );
  assert.equal(existsSync(file), false, 'the file the installer created is gone');
  assert.deepEqual(b.errors, []);
});

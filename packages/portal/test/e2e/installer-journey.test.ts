import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { assertAccessible, openBrowser, shot, signUpFirst, skipReason, startPortalServer } from './harness.js';

const run = promisify(execFile);
const skip = skipReason();
if (skip) console.log(`# SKIP portal installer journey: ${skip}`);

let server: Awaited<ReturnType<typeof startPortalServer>>;
let b: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
let home: string;

before(async () => {
  if (skip) return;
  server = await startPortalServer();
  b = await openBrowser();
  page = b.page;
  home = mkdtempSync(join(tmpdir(), 'cairn-portal-home-'));
});
after(async () => {
  await b?.close();
  await server?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('Connect > Automated: the shown installer command, run in a fresh home for Cursor, writes a working entry', { skip, timeout: 180_000 }, async () => {
  await signUpFirst(page, server.baseUrl, { name: 'Katherine Johnson', email: 'katherine@example.com', password: 'a long enough secret', organization: 'Trajectories' });
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
  await shot(page, 'connect-automated-cursor');
  await assertAccessible(page, 'the Connect dialog for Cursor');

  // Run it exactly as shown (it has no quoting: split on spaces), where npx can only fetch the installer from this Cairn.
  const [program, ...args] = command.split(' ');
  assert.equal(program, 'npx');
  const { stdout } = await run(program!, [...args, '--yes'], {
    cwd: home,
    timeout: 120_000,
    env: { PATH: process.env.PATH, HOME: home, npm_config_cache: join(home, '.npm'), npm_config_update_notifier: 'false' },
  });
  assert.match(stdout, /Connected as Katherine Johnson/);

  const file = join(home, '.cursor', 'mcp.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const entry = JSON.parse(readFileSync(file, 'utf8')).mcpServers.cairn as { url: string; headers: Record<string, string> };
  assert.equal(entry.url, server.mcpUrl);
  const answer = await fetch(`${server.baseUrl}/api/v1/datapacks`, { headers: entry.headers });
  assert.equal(answer.status, 200, 'the written key works');

  // The key minted for the installer shows up in Settings > API Keys, named after the client.
  await connect.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('row', { name: /cursor on / }).waitFor();

  // The shown removal command, run as shown, takes the entry out again.
  const [rmProgram, ...rmArgs] = removal.split(' ');
  assert.equal(rmProgram, 'npx');
  await run(rmProgram!, [...rmArgs, '--yes'], {
    cwd: home,
    timeout: 120_000,
    env: { PATH: process.env.PATH, HOME: home, npm_config_cache: join(home, '.npm'), npm_config_update_notifier: 'false' },
  });
  // The installer created this file, so uninstall removes it with the entry (packages/installer/README.md).
  assert.equal(existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).mcpServers?.cairn : undefined, undefined, 'the removal command removed the entry');
  assert.equal(existsSync(file), false, 'the file the installer created is gone');
  assert.deepEqual(b.errors, []);
});

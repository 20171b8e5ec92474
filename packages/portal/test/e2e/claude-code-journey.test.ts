// The first hour with today's Claude Code: Connect > Claude Code > Automated, run the shown command in a
// fresh home, then the real `claude` CLI (test-clients/, speaking MCP 2026-07-28: no initialize, its
// name in every request's _meta) connects, and the waiting dialog names it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { shot, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const run = promisify(execFile);
const journey = portalJourney('Claude Code journey', { tempDir: 'cairn-portal-claude-home-' });
const { skip } = journey;

test('Connect > Claude Code > Automated: the shown command, then the real claude CLI connects and the dialog says "✓ Claude Code 2.1.x connected"', {
  skip,
  timeout: 240_000,
}, async () => {
  const { server, browser: b, page, dir: home } = journey;
  await signUpFirst(page, server.baseUrl, {
    name: 'Margaret Hamilton',
    email: 'margaret@example.com',
    password: 'a long enough secret',
    organization: 'Apollo',
  });
  await page.getByRole('button', { name: 'Connect a client' }).first().click();
  const connect = page.getByRole('dialog', { name: 'Connect a client' });
  await connect.getByRole('radio', { name: 'Claude Code' }).check();
  await connect.getByRole('tab', { name: 'Automated' }).click();
  await connect.getByRole('button', { name: 'Create installer command' }).click();
  const command = (await connect.getByLabel('Installer command', { exact: true }).textContent())!.trim();
  assert.match(command, / --client claude-code /);

  // Exactly as shown (no quoting in it: split on spaces), in a fresh home where npx can only reach this Cairn.
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    npm_config_cache: join(home, '.npm'),
    npm_config_update_notifier: 'false',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
  };
  const [program, ...args] = command.split(' ');
  const installed = await run(program!, [...args, '--yes'], { cwd: home, timeout: 120_000, env });
  assert.match(installed.stdout, /Connected as Margaret Hamilton/);
  const status = connect.getByRole('status').filter({ hasText: /Waiting for your client|connected as/ });
  await status.getByText(/The installer's check connected as Margaret Hamilton/).waitFor({ timeout: 15_000 });

  const listed = await run(clientBin('claude'), ['mcp', 'list'], { cwd: home, timeout: 90_000, env });
  assert.match(listed.stdout, /cairn: .*[✓✔] Connected/, listed.stdout);
  await status
    .getByText(/✓ Claude Code 2\.1\.\d+ connected as Margaret Hamilton — \d+ datapacks/)
    .waitFor({ timeout: 15_000 });
  await shot(page, 'connect-claude-code-connected');
  assert.deepEqual(b.errors, []);
});

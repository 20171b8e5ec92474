// The Connect dialog's Automated command, exactly as shown with "Automatic mode" ticked, run with npx in a
// fresh home against a real Cairn (and, for Claude Code, the real claude CLI): it must work as shown.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createSetupCode } from '../../../server/src/domain/setup-codes.js';
import { INSTALLER_TARBALL } from '../../../server/src/http/install-route.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { createTenant, type TestTenant } from '../../../server/src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../../server/src/testing/test-cairn.js';
import { automaticOffer, CLIENT_IDS, type ClientId, installerCommands } from '../../src/connect/snippets.js';

runFileOnEachBackend();

const run = promisify(execFile);
const missing = [INSTALLER_TARBALL, clientBin('claude')].filter((f) => !existsSync(f));
const skip =
  missing.length > 0 ? `needs ${missing.join(' and ')} (npm run build; npm test installs the client CLIs)` : undefined;
if (skip) console.log(`# automated-commands skipped: ${skip}`);

/** The shown command split as a POSIX shell would (the dialog quotes nothing it shows here). */
function argv(command: string): string[] {
  assert.doesNotMatch(command, /["'\\$`]/, 'the shown command needs no shell quoting');
  return command.split(/\s+/);
}

describe('each Automated command shown with automatic mode, run as shown in a fresh home', { skip }, () => {
  let server: TestCairn;
  let tenant: TestTenant;
  const homes: string[] = [];
  before(async () => {
    server = await startTestCairn();
    tenant = await createTenant(server.cairn);
  });
  after(async () => {
    await server?.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  async function runShown(id: ClientId): Promise<{ home: string; stdout: string; env: NodeJS.ProcessEnv }> {
    const home = mkdtempSync(join(tmpdir(), `cairn-shown-${id}-`));
    homes.push(home);
    const { code } = await createSetupCode(server.cairn.domain, tenant.member.id);
    const { command } = installerCommands(id, server.baseUrl, server.mcpUrl, code, false, { auto: true });
    const [npx, ...args] = argv(command);
    const env = {
      PATH: `${dirname(clientBin('claude'))}:${process.env.PATH}`,
      HOME: home,
      npm_config_cache: join(home, '.npm'),
      npm_config_update_notifier: 'false',
      DISABLE_AUTOUPDATER: '1',
    };
    // --yes: the dialog's command asks before writing when run in a terminal; there is none here.
    const { stdout } = await run(npx!, [...args, '--yes'], { cwd: home, env, timeout: 180_000 });
    return { home, stdout, env };
  }

  test('the four clients with automatic mode are the ones tried', () => {
    assert.deepEqual(
      CLIENT_IDS.filter((id) => automaticOffer(id).kind !== 'none'),
      ['claude-code', 'codex', 'kiro', 'gemini-cli'],
    );
  });

  test('Claude Code: the MCP entry, the cairn@cairn plugin from the marketplace the installer carries, the capture config (0600)', async () => {
    const { home, stdout, env } = await runShown('claude-code');
    const entry = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers.cairn;
    assert.equal(entry.url, server.mcpUrl);
    const plugins = JSON.parse(
      (await run(clientBin('claude'), ['plugin', 'list', '--json'], { env, cwd: home })).stdout,
    ) as Array<{ id: string; enabled: boolean }>;
    assert.deepEqual(
      plugins.map((p) => [p.id, p.enabled]),
      [['cairn@cairn', true]],
    );
    assert.ok(existsSync(join(home, '.cairn', 'claude-marketplace', '.claude-plugin', 'marketplace.json')));
    assert.equal(statSync(join(home, '.cairn', 'capture.json')).mode & 0o777, 0o600);
    const key = JSON.parse(readFileSync(join(home, '.cairn', 'capture.json'), 'utf8')).apiKey as string;
    assert.ok(key.startsWith('cairn_tkn_') && !stdout.includes(key), 'the key is not printed');
  });

  test('Codex: the config table, capture hooks and skills', async () => {
    const { home } = await runShown('codex');
    assert.match(
      readFileSync(join(home, '.codex', 'config.toml'), 'utf8'),
      new RegExp(`\\[mcp_servers\\.cairn\\]\\nurl = "${server.mcpUrl}"`),
    );
    const hooks = JSON.parse(readFileSync(join(home, '.codex', 'hooks.json'), 'utf8')).hooks;
    assert.ok(hooks.UserPromptSubmit && hooks.Stop, JSON.stringify(hooks));
    assert.ok(existsSync(join(home, '.codex', 'skills', 'consult-cairn', 'SKILL.md')));
    assert.equal(statSync(join(home, '.cairn', 'capture.json')).mode & 0o777, 0o600);
  });

  test('Gemini CLI: the entry, the prompt, file-write and answer hooks, and skills', async () => {
    const { home } = await runShown('gemini-cli');
    const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'));
    assert.equal(settings.mcpServers.cairn.url, server.mcpUrl);
    assert.deepEqual(Object.keys(settings.hooks).sort(), ['AfterAgent', 'AfterTool', 'BeforeAgent']);
    assert.equal(settings.hooks.AfterTool[0].matcher, 'write_file|replace');
    assert.ok(existsSync(join(home, '.gemini', 'skills', 'consult-cairn', 'SKILL.md')));
    assert.equal(statSync(join(home, '.cairn', 'capture.json')).mode & 0o777, 0o600);
  });

  test('Kiro: the entry (0600), steering, skills, the IDE hook and the cairn agent', async () => {
    const { home } = await runShown('kiro');
    const file = join(home, '.kiro', 'settings', 'mcp.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).mcpServers.cairn.url, server.mcpUrl);
    for (const f of [
      'steering/cairn.md',
      'skills/consult-cairn/SKILL.md',
      'hooks/cairn-capture-prompt.kiro.hook',
      'agents/cairn.json',
    ])
      assert.ok(existsSync(join(home, '.kiro', f)), f);
  });
});

// Installer defects a newcomer met in their first hour, reproduced against a real Cairn
// (and, for automatic mode, the real `claude` CLI) before they were fixed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { configPath } from '@cairn/clients';
import { createApiKey } from '../../../server/src/domain/api-keys.js';
import { createSetupCode } from '../../../server/src/domain/setup-codes.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { startTenantCairn, type TestTenant } from '../../../server/src/testing/tenants.js';
import type { TestCairn } from '../../../server/src/testing/test-cairn.js';
import { inHome, type TempMachine, tempMachine } from '../../src/testing/temp-machine.js';

runFileOnEachBackend();

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');

let cairn: TestCairn;
let tenant: TestTenant;
before(async () => ({ server: cairn, tenant } = await startTenantCairn()));
after(() => cairn.close());

const out = (m: TempMachine) => `${m.lines.join('\n')}\n${m.errors.join('\n')}`;
const code = async () => (await createSetupCode(cairn.cairn.domain, tenant.member.id)).code;
const activeKeys = async (name: string) =>
  (await cairn.cairn.store.listApiKeys(tenant.member.id)).filter((k) => k.name === name && !k.revokedAt);
const mask = (key: string) => `cairn_tkn_…${key.slice(-4)}`;

describe('first hour with the installer', () => {
  test('re-running with a new setup code revokes the key it replaces: one active key per client and host', () =>
    inHome(async (m) => {
      const name = 'cursor on test-host';
      const before = (await activeKeys(name)).length;
      for (let run = 0; run < 3; run++)
        assert.equal(
          await m.install('--client', 'cursor', '--url', cairn.baseUrl, '--setup-code', await code(), '--yes'),
          0,
          out(m),
        );
      assert.equal((await activeKeys(name)).length - before, 1, 'only the key in the entry stays active');
      const inEntry = JSON.parse(
        readFileSync(configPath('cursor', m), 'utf8'),
      ).mcpServers.cairn.headers.Authorization.replace('Bearer ', '');
      assert.ok(
        (await activeKeys(name)).some((k) => inEntry.endsWith(k.last4)),
        'the active one is the one in the entry',
      );
      assert.equal(
        m.lines.filter((l) =>
          /^Revoked the key it replaced \(cairn_tkn_…\w{4}\) at 127\.0\.0\.1:\d+: no other config on this machine used it\.$/.test(
            l,
          ),
        ).length,
        2,
        out(m),
      );
    }));

  test('a replaced key that another config still uses stays active, and the installer says where', () =>
    inHome(async (m) => {
      const { key } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'shared key');
      assert.equal(await m.install('--client', 'cursor', '--url', cairn.baseUrl, '--api-key', key, '--yes'), 0, out(m));
      assert.equal(await m.install('--client', 'kiro', '--url', cairn.baseUrl, '--api-key', key, '--yes'), 0, out(m));
      assert.equal(
        await m.install('--client', 'cursor', '--url', cairn.baseUrl, '--setup-code', await code(), '--yes'),
        0,
        out(m),
      );
      assert.equal((await activeKeys('shared key')).length, 1, 'still active: Kiro uses it');
      assert.match(
        out(m),
        new RegExp(
          `The key it replaced \\(${mask(key).replace('…', '…')}\\) stays active: .*kiro/settings/mcp\\.json.* still uses? it\\. When nothing needs it, revoke it in the portal`,
        ),
      );
    }));

  test('a refused setup code: one message, no doubled period, naming both places a code comes from', () =>
    inHome(async (m) => {
      const used = await code();
      assert.equal(
        await m.install('--client', 'cursor', '--url', cairn.baseUrl, '--setup-code', used, '--yes', '--no-check'),
        0,
        out(m),
      );
      assert.equal(await m.install('--client', 'cursor', '--url', cairn.baseUrl, '--setup-code', used, '--yes'), 1);
      const said = m.errors.at(-1)!;
      assert.equal(
        said,
        'The setup code was not accepted: it was already used, has expired (codes last 10 minutes) or was mistyped. Get a new one — in the portal (Datapacks > Connect), or on the Cairn server with `cairn setup-codes create --user <your email>` — and run the command again with it.',
      );
    }));

  test('codex: "Connected" right after install with nothing to export; a re-run without a key reuses the one in config.toml', () =>
    inHome(async (m) => {
      const { key } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'codex key');
      assert.equal(await m.install('--client', 'codex', '--url', cairn.baseUrl, '--api-key', key, '--yes'), 0, out(m));
      assert.ok(
        m.lines.some((l) => /^Connected as member — \d+ datapacks?$/.test(l)),
        out(m),
      );
      assert.ok(!out(m).includes(key) && !out(m).includes('CAIRN_MCP_TOKEN'), out(m));
      m.lines.length = 0;
      assert.equal(await m.install('--client', 'codex', '--yes'), 0, out(m));
      assert.ok(
        m.lines.some((l) => /^Connected as member — \d+ datapacks?$/.test(l)),
        out(m),
      );
    }));

  test('--uninstall revokes the key the installer made from a setup code, and says so; the key count is back where it was', () =>
    inHome(async (m) => {
      const name = 'kiro on test-host';
      const before = (await activeKeys(name)).length;
      assert.equal(
        await m.install('--client', 'kiro', '--url', cairn.baseUrl, '--setup-code', await code(), '--yes'),
        0,
        out(m),
      );
      assert.equal((await activeKeys(name)).length, before + 1);
      const key = JSON.parse(
        readFileSync(configPath('kiro', m), 'utf8'),
      ).mcpServers.cairn.headers.Authorization.replace('Bearer ', '') as string;
      m.lines.length = 0;
      assert.equal(await m.install('--client', 'kiro', '--uninstall'), 0, out(m));
      assert.equal((await activeKeys(name)).length, before, 'no key left behind');
      assert.ok(
        m.lines.includes(
          `Revoked the key the installer created for the entry (${mask(key)}) at ${new URL(cairn.baseUrl).host}: no other config on this machine used it.`,
        ),
        out(m),
      );
      assert.ok(!out(m).includes(key), 'the key is never printed');
    }));

  test('--uninstall leaves a key the user gave (--api-key) active and says so; a dry run revokes nothing', () =>
    inHome(async (m) => {
      const { key } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'my own key');
      assert.equal(await m.install('--client', 'cursor', '--url', cairn.baseUrl, '--api-key', key, '--yes'), 0, out(m));
      assert.equal(await m.install('--client', 'cursor', '--uninstall'), 0, out(m));
      assert.equal((await activeKeys('my own key')).length, 1);
      assert.match(
        out(m),
        new RegExp(
          `The entry's key \\(${mask(key)}\\) stays active: the installer did not create it .*revoke it in the portal`,
        ),
      );
      assert.equal(
        await m.install('--client', 'gemini-cli', '--url', cairn.baseUrl, '--setup-code', await code(), '--yes'),
        0,
        out(m),
      );
      const before = (await activeKeys('gemini-cli on test-host')).length;
      assert.equal(await m.install('--client', 'gemini-cli', '--uninstall', '--dry-run'), 0, out(m));
      assert.match(out(m), /Dry run: would revoke the key the installer created for the entry/);
      assert.equal((await activeKeys('gemini-cli on test-host')).length, before);
    }));

  test('claude-code --auto whose marketplace cannot be added: says what is in place, what is not, and the command that finishes it (exit 4)', async () => {
    const m = tempMachine({ programs: { claude: clientBin('claude') } });
    (m.env as Record<string, string>).CLAUDE_CONFIG_DIR = join(m.home, '.claude');
    const empty = mkdtempSync(join(tmpdir(), 'not-a-marketplace-'));
    try {
      const status = await m.install(
        '--client',
        'claude-code',
        '--url',
        cairn.baseUrl,
        '--setup-code',
        await code(),
        '--yes',
        '--auto',
        '--marketplace',
        empty,
      );
      const said = out(m);
      assert.equal(status, 4, said);
      assert.match(said, /Connected as member/);
      assert.match(
        said,
        new RegExp(
          `✘ Automatic mode is not complete: \`claude plugin marketplace add ${empty}\` failed \\(exit \\d+\\)`,
        ),
      );
      assert.match(
        said,
        /In place: the "cairn" MCP entry for Claude Code with the API key cairn_tkn_…\w{4}: the agent can use Cairn when asked\./,
      );
      assert.match(
        said,
        /Not done: the cairn plugin marketplace and cairn@cairn \(skills, capture hooks, and hooks that hand the agent get_guidance's rules at each prompt and file edit\)/,
      );
      const finish = new RegExp(
        `To finish, fix the cause .* and run:\\n  (npx -y ${cairn.baseUrl.replace(/[.]/g, '\\.')}/install/cairn-mcp-installer\\.tgz --client claude-code --auto --marketplace \\S+ --yes)\\n`,
      );
      assert.match(said, finish);
      assert.match(said, /no new setup code or key is needed/);
      assert.ok(!said.includes('Unexpected error'));
      assert.equal(
        JSON.parse(readFileSync(join(m.home, '.claude', '.claude.json'), 'utf8')).mcpServers.cairn.type,
        'http',
        'the entry is in place',
      );
      // The command it printed finishes the job once the marketplace is right (no key given: the installed one is reused).
      mkdirSync(join(empty, '.claude-plugin'), { recursive: true });
      rmSync(empty, { recursive: true, force: true });
      m.lines.length = 0;
      assert.equal(
        await m.install('--client', 'claude-code', '--auto', '--marketplace', REPO_ROOT, '--yes'),
        0,
        out(m),
      );
      assert.match(out(m), /Ran: claude plugin install cairn@cairn/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
      m.cleanup();
    }
  });
});

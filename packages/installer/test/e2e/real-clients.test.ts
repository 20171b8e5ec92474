// The installer's entries, read by the real clients from npm, against a real Cairn.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { configPath } from '@cairn/clients';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { clientBin as bin } from '../../../server/src/testing/client-bins.js';
import { startTenantCairn, type TestTenant } from '../../../server/src/testing/tenants.js';
import type { TestCairn } from '../../../server/src/testing/test-cairn.js';
import { tempMachine } from '../../src/testing/temp-machine.js';

runFileOnEachBackend();

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

let cairn: TestCairn;
let tenant: TestTenant;
before(async () => ({ server: cairn, tenant } = await startTenantCairn()));
after(() => cairn.close());

/** Runs a client without blocking: Cairn answers from this same process. */
function run(
  program: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; out: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { env: { ...env, PATH: process.env.PATH ?? '' } as NodeJS.ProcessEnv, timeout: 120_000, cwd: env.HOME },
      (error, stdout, stderr) => {
        resolve({
          code: error ? Number((error as { code?: unknown }).code) || 1 : 0,
          out: `${stdout}\n${stderr}`,
          stdout,
        });
      },
    );
  });
}

describe('real clients from npm', { concurrency: true }, () => {
  test('claude-code through `claude mcp add`: `claude mcp list` prints ✔ Connected', async () => {
    const m = tempMachine({ programs: { claude: bin('claude') } });
    (m.env as Record<string, string>).CLAUDE_CONFIG_DIR = join(m.home, '.claude');
    try {
      assert.equal(
        await m.install('--client', 'claude-code', '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--yes'),
        0,
        m.errors.join('\n'),
      );
      assert.equal(m.ran[0]?.slice(0, 8).join(' '), 'claude mcp add --scope user --transport http cairn');
      const entry = JSON.parse(readFileSync(configPath('claude-code', m), 'utf8')).mcpServers.cairn;
      assert.deepEqual(entry, {
        type: 'http',
        url: cairn.mcpUrl,
        headers: { Authorization: `Bearer ${tenant.owner.key}`, 'User-Agent': 'cairn-mcp-installer/1.0' },
      });
      assert.equal(
        await m.install('--client', 'claude-code', '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--yes'),
        0,
      );
      assert.equal(m.ran.length, 1, 'an identical re-run runs no command');
      assert.match(
        (await run(bin('claude'), ['mcp', 'list'], m.env)).out,
        new RegExp(`cairn: ${cairn.mcpUrl} \\(HTTP\\) - ✔ Connected`),
      );
    } finally {
      m.cleanup();
    }
  });

  test('claude-code without the CLI on PATH: the written ~/.claude.json connects too', async () => {
    const m = tempMachine();
    try {
      assert.equal(
        await m.install('--client', 'claude-code', '--url', cairn.baseUrl, '--api-key', tenant.member.key, '--yes'),
        0,
        m.errors.join('\n'),
      );
      assert.deepEqual(m.ran, []);
      assert.match((await run(bin('claude'), ['mcp', 'list'], m.env)).out, /cairn: .* - ✔ Connected/);
    } finally {
      m.cleanup();
    }
  });

  test('gemini-cli: `gemini mcp list` shows the entry Connected', async () => {
    const m = tempMachine({ env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' } });
    try {
      (m.env as Record<string, string>).GEMINI_CLI_HOME = m.home;
      assert.equal(
        await m.install('--client', 'gemini-cli', '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--yes'),
        0,
        m.errors.join('\n'),
      );
      assert.match(
        (await run(bin('gemini'), ['mcp', 'list'], m.env)).out,
        new RegExp(`cairn: ${cairn.mcpUrl} \\(http\\) - Connected`),
      );
    } finally {
      m.cleanup();
    }
  });

  test('codex: `codex mcp get cairn --json` shows the URL and both headers, the key in the file (0600); `codex mcp list` names it Bearer token auth', async () => {
    const m = tempMachine();
    try {
      (m.env as Record<string, string>).CODEX_HOME = join(m.home, 'codex-home');
      assert.equal(
        await m.install('--client', 'codex', '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--yes'),
        0,
        m.errors.join('\n'),
      );
      assert.ok(!m.lines.join('\n').includes(tenant.owner.key), 'the key is never printed');
      assert.equal(statSync(join(m.home, 'codex-home', 'config.toml')).mode & 0o777, 0o600);
      const out = await run(bin('codex'), ['mcp', 'get', 'cairn', '--json'], m.env);
      assert.equal(out.code, 0, out.out);
      const transport = JSON.parse(out.stdout).transport;
      assert.equal(transport.url, cairn.mcpUrl);
      assert.equal(transport.bearer_token_env_var, null);
      assert.deepEqual(transport.http_headers, {
        Authorization: `Bearer ${tenant.owner.key}`,
        'User-Agent': 'cairn-mcp-installer/1.0',
      });
      assert.match((await run(bin('codex'), ['mcp', 'list'], m.env)).out, /cairn\s+\S+\s+-\s+enabled\s+Bearer token/);
    } finally {
      m.cleanup();
    }
  });

  test('gemini-cli: the entry is Disabled in an untrusted folder, and Connected once the folder is trusted the way the installer says', async () => {
    const m = tempMachine();
    try {
      (m.env as Record<string, string>).GEMINI_CLI_HOME = m.home;
      assert.equal(
        await m.install('--client', 'gemini-cli', '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--yes'),
        0,
        m.errors.join('\n'),
      );
      assert.ok(
        m.lines.some((l) => l.includes('trusted folders') && l.includes('/permissions trust')),
        m.lines.join('\n'),
      );
      assert.match((await run(bin('gemini'), ['mcp', 'list'], m.env)).out, /cairn: .* - Disabled/);
      // What "trust it when asked" (or /permissions trust) records: the folder in trustedFolders.json.
      writeFileSync(join(m.home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [m.home]: 'TRUST_FOLDER' }));
      assert.match(
        (await run(bin('gemini'), ['mcp', 'list'], m.env)).out,
        new RegExp(`cairn: ${cairn.mcpUrl} \\(http\\) - Connected`),
      );
    } finally {
      m.cleanup();
    }
  });

  test('claude-desktop: the written bridge entry, spawned as Claude Desktop would, lists the datapacks', async () => {
    const m = tempMachine();
    const scratch = mkdtempSync(join(tmpdir(), 'cairn-bridge-'));
    try {
      assert.equal(
        await m.install('--client', 'claude-desktop', '--url', cairn.baseUrl, '--api-key', tenant.owner.key, '--yes'),
        0,
        m.errors.join('\n'),
      );
      const entry = JSON.parse(readFileSync(configPath('claude-desktop', m), 'utf8')).mcpServers.cairn;
      const transport = new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: {
          ...entry.env,
          PATH: process.env.PATH ?? '',
          HOME: scratch,
          MCP_REMOTE_CONFIG_DIR: join(scratch, 'auth'),
          npm_config_cache: join(scratch, 'npm'),
          BROWSER: 'true',
        },
        cwd: REPO_ROOT,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'chat-desktop-stand-in', version: '1.0.0' });
      await client.connect(transport);
      try {
        const result = await client.callTool({ name: 'list_datapacks', arguments: {} });
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.match(JSON.stringify(result), /personal/i);
      } finally {
        await client.close();
      }
    } finally {
      m.cleanup();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

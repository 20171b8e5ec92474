import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createSetupCode } from '../../src/domain/setup-codes.js';
import { INSTALLER_TARBALL } from '../../src/http/install-route.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const run = promisify(execFile);
const built = (() => {
  try {
    return statSync(INSTALLER_TARBALL).isFile();
  } catch {
    return false;
  }
})();
if (!built) console.log('# installer npx test skipped: the installer tarball is not built (npm run build)');

describe('npx -y <base>/install/cairn-mcp-installer.tgz, as a user on another machine runs it', {
  skip: built ? undefined : 'installer tarball not built; run npm run build',
}, () => {
  let server: TestCairn;
  let tenant: TestTenant;
  let home: string;

  before(async () => {
    server = await startTestCairn();
    tenant = await createTenant(server.cairn);
    home = mkdtempSync(join(tmpdir(), 'cairn-home-'));
  });
  after(async () => {
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  // A cold npm cache and a working folder outside the repository: npx can only get the installer from Cairn.
  const npx = (args: string[]) =>
    run('npx', ['-y', `${server.baseUrl}/install/cairn-mcp-installer.tgz`, ...args], {
      cwd: home,
      timeout: 90_000,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        npm_config_cache: join(home, '.npm'),
        npm_config_update_notifier: 'false',
      },
    });

  test("a setup code becomes a working Cursor entry; the key and a neighbour's token never appear on the command line, in the output or in npm's log", async () => {
    const { code } = await createSetupCode(server.cairn.domain, tenant.member.id);
    const file = join(home, '.cursor', 'mcp.json');
    const neighbourToken = 'ghp_R8vKq2LmZ7xWc4NbT9yHs3JdF6gPa1Ue5Qio';
    mkdirSync(join(home, '.cursor'), { recursive: true });
    const github = {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: neighbourToken },
    };
    writeFileSync(file, `${JSON.stringify({ mcpServers: { github } }, null, 2)}\n`);
    // Without --yes the diff is shown (no terminal to ask on, so it is written): the neighbour is in its context.
    const { stdout, stderr } = await npx(['--client', 'cursor', '--url', server.baseUrl, '--setup-code', code]);
    assert.match(stdout, /GITHUB_PERSONAL_ACCESS_TOKEN/, stdout);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const entry = JSON.parse(readFileSync(file, 'utf8')).mcpServers.cairn as {
      url: string;
      headers: Record<string, string>;
    };
    assert.equal(entry.url, server.mcpUrl);
    assert.equal(entry.headers['User-Agent'], 'cairn-mcp-installer/1.0');
    const key = entry.headers.Authorization!.replace(/^Bearer /, '');
    const logs = join(home, '.npm', '_logs');
    const npmLog = readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n');
    assert.ok(npmLog.length > 0, "npm's debug log was written");
    for (const [what, text] of [
      ['output', stdout + stderr],
      ["npm's log", npmLog],
    ] as const) {
      assert.ok(!text.includes(key), `the key is not in the ${what}`);
      assert.ok(!text.includes(neighbourToken), `the neighbour's token is not in the ${what}`);
    }
    const named = (await server.cairn.store.listApiKeys(tenant.member.id)).find((k) => k.name.startsWith('cursor on '));
    assert.ok(named, 'the key is named after the client and host');

    const client = new Client({ name: 'cursor-stand-in', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
    );
    const result = await client.callTool({ name: 'list_datapacks', arguments: {} });
    await client.close();
    assert.ok((result.structuredContent as { teams: { id: string }[] }).teams.some((t) => t.id === tenant.teamId));

    const before = readFileSync(file, 'utf8');
    await assert.rejects(
      () => npx(['--client', 'cursor', '--url', server.baseUrl, '--setup-code', code, '--yes']),
      (error: { stderr?: string; stdout?: string }) => {
        assert.match(`${error.stderr}${error.stdout}`, /already used, has expired/);
        return true;
      },
    );
    assert.equal(readFileSync(file, 'utf8'), before, 'a refused code changes nothing');
  });
});

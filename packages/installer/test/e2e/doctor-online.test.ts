// doctor checks each entry's key with the Cairn it points at: a revoked key, an older Codex
// table whose token variable is unset, and an unreachable Cairn, against a real server.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { configPath } from '@cairn/clients';
import { createApiKey, revokeApiKey } from '../../../server/src/domain/api-keys.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { startTenantCairn, type TestTenant } from '../../../server/src/testing/tenants.js';
import type { TestCairn } from '../../../server/src/testing/test-cairn.js';
import { main } from '../../src/main.js';
import { inHome, type TempMachine } from '../../src/testing/temp-machine.js';

runFileOnEachBackend();

let cairn: TestCairn;
let tenant: TestTenant;
before(async () => ({ server: cairn, tenant } = await startTenantCairn()));
after(() => cairn.close());

/** A port nothing listens on: one the system just handed out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const doctor = (m: TempMachine) => main(['doctor'], m, 'v20.20.2', (line) => m.errors.push(line));
const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode: 0o600 });
};
const cursorEntry = (url: string, key: string) =>
  `${JSON.stringify({ mcpServers: { cairn: { url, headers: { Authorization: `Bearer ${key}`, 'User-Agent': 'cairn-mcp-installer/1.0' } } } })}\n`;

test('doctor: a working key is no problem; a revoked one is, with what to do; the key is never printed', () =>
  inHome(async (m) => {
    const { key, record } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'doctor key');
    write(configPath('cursor', m), cursorEntry(cairn.mcpUrl, key));
    assert.equal(await doctor(m), 0, m.lines.join('\n'));
    assert.match(m.lines.at(-1)!, /^No problems: 1 Cairn entry/);
    await revokeApiKey(cairn.cairn.domain, record.id, tenant.member.id);
    m.lines.length = 0;
    assert.equal(await doctor(m), 1, m.lines.join('\n'));
    const said = m.lines.join('\n');
    assert.match(
      said,
      /mcp\.json: "cairn" Cairn refuses the key: the API key was refused .*\. Fix: the key is revoked, expired or mistyped: get a setup code and run npx -y \S+\/install\/cairn-mcp-installer\.tgz --client cursor --url \S+ --setup-code/,
    );
    assert.ok(!said.includes(key), 'the key is masked');
  }));

test('doctor: an older Codex table whose CAIRN_MCP_TOKEN is unset is a problem, named, with the re-run that fixes it', () =>
  inHome(async (m) => {
    write(
      configPath('codex', m),
      `[mcp_servers.cairn]\nurl = "${cairn.mcpUrl}"\nbearer_token_env_var = "CAIRN_MCP_TOKEN"\nhttp_headers = { "User-Agent" = "cairn-mcp-installer/1.0" }\n`,
    );
    assert.equal(await doctor(m), 1, m.lines.join('\n'));
    assert.match(
      m.lines.join('\n'),
      /config\.toml: "cairn" reads its key from CAIRN_MCP_TOKEN, which is not set here, so Codex sends no key\. Fix: run .*--client codex --url \S+ --setup-code/,
    );
    const { key } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'codex env key');
    (m.env as Record<string, string>).CAIRN_MCP_TOKEN = key;
    m.lines.length = 0;
    assert.equal(await doctor(m), 0, m.lines.join('\n'));
  }));

test('doctor: an unreachable Cairn leaves the key unchecked and says so, without counting it a problem', () =>
  inHome(
    async (m) => {
      const { key } = await createApiKey(cairn.cairn.domain, tenant.member.id, 'offline key');
      const port = await closedPort();
      write(configPath('cursor', m), cursorEntry(`http://127.0.0.1:${port}/mcp`, key));
      assert.equal(await doctor(m), 0, m.lines.join('\n'));
      assert.match(
        m.lines.join('\n'),
        new RegExp(`Not checked online: server unreachable: nothing listens at 127\\.0\\.0\\.1:${port}`),
      );
    },
    { fetch: globalThis.fetch },
  ));

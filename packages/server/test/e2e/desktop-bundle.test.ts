import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { clientBin } from '../../src/testing/client-bins.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const run = promisify(execFile);
const AUTH_SECRET = 'an-operator-secret-that-must-stay-on-the-server-0123456789';

/** The served bundle as the official tool reads it: `mcpb unpack`, then `mcpb validate` on its manifest; every file's text. */
async function unpackWithMcpb(bytes: Uint8Array): Promise<{ manifest: any; validate: string; text: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-served-mcpb-'));
  try {
    writeFileSync(join(dir, 'b.mcpb'), bytes);
    await run(clientBin('mcpb'), ['unpack', join(dir, 'b.mcpb'), join(dir, 'out')]);
    const { stdout } = await run(clientBin('mcpb'), ['validate', join(dir, 'out', 'manifest.json')]);
    const files = readdirSync(join(dir, 'out'), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    const text = files.map((f) => readFileSync(join(f.parentPath, f.name), 'utf8')).join('\n');
    return { manifest: JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8')), validate: stdout, text };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('GET /install/cairn-claude-desktop.mcpb', () => {
  let server: TestCairn;
  let tenant: TestTenant;
  before(async () => {
    server = await startTestCairn({ env: { CAIRN_AUTH_SECRET: AUTH_SECRET } });
    tenant = await createTenant(server.cairn);
  });
  after(() => server?.close());

  test('needs no credentials, downloads as a .mcpb file, and runs the bridge to this Cairn with the key from user_config', async () => {
    const response = await fetch(`${server.baseUrl}/install/cairn-claude-desktop.mcpb`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/zip');
    assert.equal(response.headers.get('content-disposition'), 'attachment; filename="cairn-claude-desktop.mcpb"');
    const { manifest, validate } = await unpackWithMcpb(new Uint8Array(await response.arrayBuffer()));
    assert.match(validate, /Manifest schema validation passes!/);
    assert.deepEqual(manifest.server.mcp_config, {
      command: 'npx',
      args: [
        '-y',
        'mcp-remote@0.1.38',
        `${server.baseUrl}/mcp`,
        '--transport',
        'http-only',
        '--header',
        'Authorization:${AUTH_HEADER}',
        '--header',
        'User-Agent:cairn-mcp-installer/1.0',
      ],
      env: { AUTH_HEADER: 'Bearer ${user_config.api_key}' },
    });
    assert.equal(manifest.user_config.api_key.sensitive, true);
  });

  test("holds no secret: no key (not even the caller's own), no server secret; a signed-in caller gets the same bytes", async () => {
    const anonymous = Buffer.from(
      await (await fetch(`${server.baseUrl}/install/cairn-claude-desktop.mcpb`)).arrayBuffer(),
    );
    const withKey = Buffer.from(
      await (
        await fetch(`${server.baseUrl}/install/cairn-claude-desktop.mcpb`, {
          headers: { Authorization: `Bearer ${tenant.member.key}`, 'User-Agent': 'cairn-mcp-installer/1.0' },
        })
      ).arrayBuffer(),
    );
    assert.deepEqual(withKey, anonymous);
    // Read unpacked: the zip's deflated bytes would hide a secret from a plain scan.
    const { text } = await unpackWithMcpb(anonymous);
    assert.match(text, /mcp-remote@0\.1\.38/, 'the unpacked text is read');
    for (const secret of [tenant.member.key, tenant.owner.key, AUTH_SECRET])
      assert.ok(!text.includes(secret), 'no secret in the bundle');
    assert.doesNotMatch(text, /cairn_tkn_[A-Za-z0-9]/, 'no key of any user');
  });

  test('a second download is answered from the ETag', async () => {
    const first = await fetch(`${server.baseUrl}/install/cairn-claude-desktop.mcpb`);
    await first.arrayBuffer();
    const etag = first.headers.get('etag');
    assert.ok(etag);
    assert.equal(
      (await fetch(`${server.baseUrl}/install/cairn-claude-desktop.mcpb`, { headers: { 'If-None-Match': etag } }))
        .status,
      304,
    );
  });
});

describe('a Cairn whose CAIRN_BASE_URL has odd characters', () => {
  let server: TestCairn;
  before(async () => {
    server = await startTestCairn({ env: { CAIRN_BASE_URL: 'https://cairn.example.com/team "α"/${HOME}/a b' } });
  });
  after(() => server?.close());

  test('still serves a valid manifest naming its URL, percent-encoded so nothing reads as a ${…} variable', async () => {
    const response = await fetch(`http://127.0.0.1:${server.cairn.config.port}/install/cairn-claude-desktop.mcpb`);
    assert.equal(response.status, 200);
    const { manifest, validate } = await unpackWithMcpb(new Uint8Array(await response.arrayBuffer()));
    assert.match(validate, /Manifest schema validation passes!/);
    assert.equal(
      manifest.server.mcp_config.args[2],
      'https://cairn.example.com/team%20%22%CE%B1%22/$%7BHOME%7D/a%20b/mcp',
    );
  });
});

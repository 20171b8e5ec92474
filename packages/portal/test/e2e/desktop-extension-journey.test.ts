import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { assertAccessible, signUpFirst } from './harness.js';
import { portalJourney } from './journey.js';

const run = promisify(execFile);
const journey = portalJourney('Claude Desktop extension journey', { tempDir: 'cairn-portal-download-' });
const { skip } = journey;

test('Connect > Claude Desktop > Manual: "Download extension (.mcpb)" downloads a bundle for this Cairn that holds no key', {
  skip,
  timeout: 120_000,
}, async () => {
  const { server, browser: b, page, dir } = journey;
  await signUpFirst(page, server.baseUrl);
  await page.getByRole('link', { name: 'Personal' }).first().click();
  await page.getByRole('button', { name: 'Connect a client' }).first().click();
  const connect = page.getByRole('dialog', { name: 'Connect a client' });
  await connect.getByRole('radio', { name: 'Claude Desktop' }).check();
  await connect.getByRole('tab', { name: 'Manual (API key)' }).click();
  // A key on screen too: the download must not pick it up.
  await connect.getByRole('button', { name: 'Generate API key' }).click();
  await connect.getByText(/Your new key is in the snippet below/).waitFor();
  const key = /cairn_tkn_\w+/.exec((await connect.getByLabel(/^Entry in /).textContent()) ?? '')![0];
  await assertAccessible(page, 'the Connect dialog, Claude Desktop Manual with the extension');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    connect.getByRole('link', { name: 'Download extension (.mcpb)' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'cairn-claude-desktop.mcpb');
  const file = join(dir, download.suggestedFilename());
  await download.saveAs(file);
  const bytes = readFileSync(file);
  assert.equal(bytes.subarray(0, 4).toString('latin1'), 'PK\x03\x04', 'a zip');

  // The official tool unpacks and validates it; its manifest runs the bridge to this Cairn's MCP URL.
  await run(clientBin('mcpb'), ['unpack', file, join(dir, 'out')]);
  assert.match(
    (await run(clientBin('mcpb'), ['validate', join(dir, 'out', 'manifest.json')])).stdout,
    /Manifest schema validation passes!/,
  );
  const manifest = JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8'));
  assert.equal(manifest.server.mcp_config.args[2], server.mcpUrl);
  assert.equal(manifest.server.mcp_config.args[2], `${server.baseUrl}/mcp`);
  assert.equal(manifest.user_config.api_key.sensitive, true);
  // Every unpacked file (deflated bytes would hide a key from a plain scan): not the key on screen, nor any other.
  const unpacked = readdirSync(join(dir, 'out'), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  assert.ok(unpacked.length >= 2);
  for (const f of unpacked) {
    const text = readFileSync(join(f.parentPath, f.name), 'utf8');
    assert.ok(!text.includes(key), `${f.name} does not hold the key`);
    assert.doesNotMatch(text, /cairn_tkn_[A-Za-z0-9]/, `${f.name} holds no key`);
  }
  assert.deepEqual(b.errors, []);
});

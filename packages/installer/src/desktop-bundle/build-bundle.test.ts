import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspectBundle, resolvedServerConfig } from '../testing/mcpb-tool.js';
import { buildDesktopBundle } from './build-bundle.js';

const KEY = 'cairn_tkn_Zq3planted0000000000000000000000000000';
// The contract's bridge args, written out here rather than taken from the code under test.
const bridgeArgs = (url: string) => [
  '-y',
  'mcp-remote@0.1.38',
  url,
  '--transport',
  'http-only',
  '--header',
  'Authorization:${AUTH_HEADER}',
  '--header',
  'User-Agent:cairn-mcp-installer/1.0',
];

test('the official mcpb tool accepts the bundle; it runs the contract bridge, with the key only from the sensitive user_config', async () => {
  const bundle = await inspectBundle(buildDesktopBundle('https://cairn.example.com'));
  assert.match(bundle.validate, /Manifest schema validation passes!/);
  assert.match(bundle.info, /Size: [\d.]+ KB/, 'mcpb info reads the file');
  const server = bundle.manifest.server as {
    type: string;
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  assert.deepEqual(server.mcp_config, {
    command: 'npx',
    args: bridgeArgs('https://cairn.example.com/mcp'),
    env: { AUTH_HEADER: 'Bearer ${user_config.api_key}' },
  });
  assert.ok(bundle.files[server.entry_point], 'entry_point names a file in the bundle');
  const field = (bundle.manifest.user_config as Record<string, Record<string, unknown>>).api_key!;
  assert.equal(field.sensitive, true);
  assert.equal(field.required, true);
  assert.equal(field.type, 'string');
  // What Claude Desktop runs once the user has pasted a key: exactly the contract's bridge entry.
  assert.deepEqual(await resolvedServerConfig(bundle.manifest, { api_key: KEY }), {
    command: 'npx',
    args: bridgeArgs('https://cairn.example.com/mcp'),
    env: { AUTH_HEADER: `Bearer ${KEY}` },
  });
});

test("the plugin's skills ride along as files, and the README says Claude Desktop does not load them", async () => {
  const bundle = await inspectBundle(buildDesktopBundle('https://cairn.example.com/'));
  assert.deepEqual(Object.keys(bundle.files).sort(), [
    'README.md',
    'manifest.json',
    'skills/consult-cairn/SKILL.md',
    'skills/save-to-cairn/SKILL.md',
  ]);
  assert.match(bundle.files['skills/consult-cairn/SKILL.md']!, /^---\nname: consult-cairn\n/);
  assert.match(bundle.files['README.md']!, /does not load skills from an extension/);
  assert.match(bundle.files['README.md']!, /Settings > Extensions/);
});

test('an address with odd characters still gives a valid manifest; ${…} cannot reach Claude Desktop as a variable', async () => {
  const bundle = await inspectBundle(buildDesktopBundle('http://localhost:8080/team "α"/${HOME}/a b\\c'));
  assert.match(bundle.validate, /Manifest schema validation passes!/);
  const expected = 'http://localhost:8080/team%20%22%CE%B1%22/$%7BHOME%7D/a%20b/c/mcp';
  const { mcp_config } = bundle.manifest.server as { mcp_config: { args: string[] } };
  assert.equal(mcp_config.args[2], expected);
  assert.equal((await resolvedServerConfig(bundle.manifest, { api_key: KEY })).args[2], expected);
});

test('the same address gives the same bytes; no file in it holds a key', async () => {
  const bytes = buildDesktopBundle('https://cairn.example.com');
  assert.deepEqual(bytes, buildDesktopBundle('https://cairn.example.com'));
  // Read unpacked: the zip's deflated bytes would hide a key from a plain scan.
  const { files } = await inspectBundle(bytes);
  for (const [path, text] of Object.entries(files))
    assert.doesNotMatch(text, /cairn_tkn_[A-Za-z0-9]/, `${path} holds no key`);
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { INSTALLER_USER_AGENT } from '@cairn/contract';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { SERVER_INFO } from '../src/mcp/server-factory.js';

// The repository's server.json, for the official MCP Registry, against the registry's own published schema.
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const serverJson = read('../../../server.json');
const schema = read('./fixtures/vendor/mcp-registry/server.schema.json');
const packageJson = read('../package.json');

// draft-07, as the schema declares; strict off only because the schema carries OpenAPI's `example` keyword.
const ajv = new Ajv({ strict: false, allErrors: true });
formats.default(ajv);
const validate = ajv.compile(schema);
const errorsOf = (document: unknown) =>
  validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

test('server.json is valid against the MCP Registry schema it names', () => {
  assert.equal(serverJson.$schema, schema.$id);
  assert.deepEqual(errorsOf(serverJson), []);
});

test('the validator refuses what the registry refuses (a URL not starting with http(s)://, a long description, no name)', () => {
  const remote = serverJson.remotes[0];
  assert.notDeepEqual(errorsOf({ ...serverJson, remotes: [{ ...remote, url: '{base_url}/mcp' }] }), []);
  assert.notDeepEqual(errorsOf({ ...serverJson, description: 'x'.repeat(101) }), []);
  const { name: _name, ...nameless } = serverJson;
  assert.notDeepEqual(errorsOf(nameless), []);
  assert.notDeepEqual(errorsOf({ ...serverJson, name: 'cairn' }), [], 'the name must be reverse-DNS with one slash');
});

test('server.json has the version of @cairn/server, which is also what initialize reports', () => {
  assert.equal(serverJson.version, packageJson.version);
  assert.equal(SERVER_INFO.version, packageJson.version);
});

test('its one remote is <base>/mcp over streamable HTTP, with the operator filling in the host', () => {
  assert.equal(serverJson.remotes.length, 1);
  const [remote] = serverJson.remotes;
  assert.equal(remote.type, 'streamable-http');
  const host = [...remote.url.matchAll(/\{(\w+)\}/g)].map((m: RegExpMatchArray) => m[1]);
  assert.deepEqual(host, ['cairn_host']);
  assert.equal(remote.variables.cairn_host.isRequired, true);
  assert.equal(remote.url.replace('{cairn_host}', 'cairn.example.com'), 'https://cairn.example.com/mcp');
  const headers = new Map(remote.headers.map((h: { name: string }) => [h.name, h]));
  assert.equal((headers.get('User-Agent') as { value: string }).value, INSTALLER_USER_AGENT);
  assert.equal((headers.get('Authorization') as { value: string; isSecret: boolean }).value, 'Bearer {api_key}');
  assert.equal((headers.get('Authorization') as { isSecret: boolean }).isSecret, true);
});

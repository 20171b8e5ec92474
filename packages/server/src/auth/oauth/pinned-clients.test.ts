import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../config/load-config.js';
import { checkPinnedClients } from './pinned-clients.js';

const ID = 'https://vendor.invalid/oauth/client.json';
const CALLBACK = 'http://127.0.0.1:1455/auth/callback';
const folder = mkdtempSync(join(tmpdir(), 'cairn-pins-'));
let files = 0;

/** The pins as Cairn starts with them: the file read by loadConfig, then each entry checked. */
function start(contents: string, env: Record<string, string> = {}) {
  const file = join(folder, `pins-${++files}.json`);
  writeFileSync(file, contents);
  const config = loadConfig({ CAIRN_OAUTH_PINNED_CLIENTS: file, ...env });
  return checkPinnedClients(config.oauthPinnedClients, config.oauthAllowLoopback);
}

const doc = (fields: Record<string, unknown> = {}) => ({
  client_id: ID,
  client_name: 'Vendor CLI',
  redirect_uris: [CALLBACK],
  token_endpoint_auth_method: 'none',
  ...fields,
});

test('a good entry is kept as the provider stores it, a native app unless it says otherwise', () => {
  const pins = start(JSON.stringify({ [ID]: doc() }));
  assert.deepEqual([...pins.keys()], [ID]);
  assert.equal(pins.get(ID)?.application_type, 'native');
  assert.deepEqual(pins.get(ID)?.redirect_uris, [CALLBACK]);
});

test('unset or empty, nothing is pinned', () => {
  assert.equal(loadConfig({}).oauthPinnedClients, undefined);
  assert.equal(loadConfig({ CAIRN_OAUTH_PINNED_CLIENTS: ' ' }).oauthPinnedClients, undefined);
  assert.equal(start('{}').size, 0);
});

test('a bad entry stops the start with the file, the entry and the problem named', () => {
  const cases: [string, Record<string, unknown>, RegExp, Record<string, string>?][] = [
    [
      'http://vendor.invalid/client.json',
      doc({ client_id: 'http://vendor.invalid/client.json' }),
      /the key must be the client_id itself, an https URL/,
    ],
    ['https://vendor.invalid/', doc({ client_id: 'https://vendor.invalid/' }), /an https URL with a path/],
    ['https://vendor.invalid/a.json#x', doc({ client_id: 'https://vendor.invalid/a.json#x' }), /without a fragment/],
    ['https://elsewhere.invalid/client.json', doc(), /its client_id is not https:\/\/elsewhere\.invalid\/client\.json/],
    [ID, doc({ skip_consent: true }), /may not set skip_consent/],
    [ID, doc({ client_secret: 'shh' }), /may not set client_secret/],
    [ID, doc({ token_endpoint_auth_method: 'client_secret_basic' }), /client_secret_basic needs a shared secret/],
    [ID, doc({ redirect_uris: undefined }), /lists no redirect_uris|invalid metadata: redirect_uris/],
    [ID, doc({ redirect_uris: [] }), /invalid metadata: redirect_uris/],
    [ID, doc({ redirect_uris: ['not a url'] }), /invalid metadata: redirect_uris/],
    [ID, doc({ client_name: 'N'.repeat(201) }), /client_name must be at most 200 characters/],
    [
      ID,
      doc({ jwks_uri: 'https://vendor.invalid/jwks.json', token_endpoint_auth_method: 'private_key_jwt' }),
      /jwks_uri, which Cairn would have to fetch/,
    ],
    [
      ID,
      doc(),
      /loopback \(localhost\) callback, which CAIRN_OAUTH_ALLOW_LOOPBACK=false refuses/,
      { CAIRN_OAUTH_ALLOW_LOOPBACK: 'false' },
    ],
  ];
  for (const [key, value, problem, env] of cases) {
    assert.throws(
      () =>
        start(
          JSON.stringify({
            [ID.replace('client', 'fine')]: doc({
              client_id: ID.replace('client', 'fine'),
              redirect_uris: ['https://vendor.invalid/callback'],
            }),
            [key]: value,
          }),
          env,
        ),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message.includes(
          `CAIRN_OAUTH_PINNED_CLIENTS: ${folder}/pins-${files}.json, entry ${JSON.stringify(key)}: `,
        ) &&
        problem.test(error.message) &&
        /Fix or remove that entry/.test(error.message),
      `${key}: ${problem}`,
    );
  }
});

test('a file that cannot be used stops the start, saying what it must be', () => {
  const cases: [string | undefined, RegExp][] = [
    [
      undefined,
      /cannot read .*missing\.json \(ENOENT\): point it at a JSON file that maps each client_id URL to its metadata document, or unset it/,
    ],
    ['{"a": ', /is not valid JSON/],
    [JSON.stringify([doc()]), /must hold one JSON object mapping each client_id URL to its metadata document/],
    [
      JSON.stringify({ [ID]: 'https://vendor.invalid/oauth/client.json' }),
      new RegExp(`entry "${ID.replace(/[./]/g, '\\$&')}": the value must be the metadata document itself`),
    ],
  ];
  for (const [contents, message] of cases) {
    const file = join(folder, contents === undefined ? 'missing.json' : `shape-${++files}.json`);
    if (contents !== undefined) writeFileSync(file, contents);
    assert.throws(
      () => loadConfig({ CAIRN_OAUTH_PINNED_CLIENTS: file }),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message.includes('CAIRN_OAUTH_PINNED_CLIENTS: ') &&
        message.test(error.message),
      String(message),
    );
  }
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { INSTALLER_USER_AGENT } from '@cairn/contract';
import type { Client } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

// MCP discovery as docs/discovery.md of modelcontextprotocol/experimental-ext-server-card (8924e08) defines it:
// the card at <mcp url>/server-card, the AI Catalog, CORS, caching and ETags; see test/fixtures/vendor/mcp-server-card.

// A public base URL other than the address the test listens on, so every URL in the card must come from it.
const BASE = 'https://memory.example.com';
const CARD_PATHS = ['/mcp/server-card', '/.well-known/mcp/server-card.json'];
const CATALOG_PATHS = {
  '/.well-known/ai-catalog.json': 'application/ai-catalog+json',
  '/.well-known/mcp/catalog.json': 'application/json',
};
const ALL_PATHS = [...CARD_PATHS, ...Object.keys(CATALOG_PATHS)];

const cardSchema = JSON.parse(
  readFileSync(new URL('../fixtures/vendor/mcp-server-card/server-card.schema.json', import.meta.url), 'utf8'),
);
const ajv = new Ajv2020({ strict: true, allErrors: true });
formats.default(ajv);
ajv.addSchema(cardSchema, 'server-card');
const validateCard = ajv.getSchema('server-card#/$defs/ServerCard')!;

let server: TestCairn;
let local: string;
let tenant: TestTenant;
let client: Client;

before(async () => {
  server = await startTestCairn({ env: { CAIRN_BASE_URL: BASE } });
  local = `http://127.0.0.1:${server.cairn.config.port}`;
  tenant = await createTenant(server.cairn);
  client = await connectMcpClient(`${local}/mcp`, tenant.owner.key);
  // Some private data in the database, which the card must never show.
  const saved = await callTool(client, 'save_entry', {
    title: 'Secret recipe',
    content: 'Private: grandma uses cardamom.',
  });
  assert.equal(saved.status, 'created');
});

after(async () => {
  await client?.close();
  await server?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${local}${path}`, { headers });
const card = async (path = '/mcp/server-card') => (await (await get(path)).json()) as any;

function assertDiscoveryHeaders(response: Response) {
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  assert.equal(response.headers.get('access-control-allow-methods'), 'GET');
  assert.equal(response.headers.get('access-control-allow-headers'), 'Content-Type, If-None-Match');
  assert.equal(response.headers.get('access-control-expose-headers'), 'ETag');
}

describe('reading without credentials', () => {
  for (const path of CARD_PATHS) {
    test(`GET ${path}: the Server Card, public, cacheable, with its media type`, async () => {
      const response = await get(path, {
        Accept: 'application/mcp-server-card+json',
        Origin: 'https://some-web-client.example',
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/mcp-server-card+json');
      assertDiscoveryHeaders(response);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=3600');
      assert.match(response.headers.get('etag') ?? '', /^"[^"]+"$/);
      const body = await response.json();
      assert.ok(validateCard(body), JSON.stringify(validateCard.errors));
    });
  }

  for (const [path, contentType] of Object.entries(CATALOG_PATHS)) {
    test(`GET ${path}: an AI Catalog whose one entry points at the card`, async () => {
      const response = await get(path);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), contentType);
      assertDiscoveryHeaders(response);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=3600');
      const catalog = (await response.json()) as any;
      assert.equal(catalog.specVersion, '1.0');
      assert.deepEqual(catalog.entries, [
        {
          identifier: 'urn:air:memory.example.com:mcp:cairn',
          type: 'application/mcp-server-card+json',
          url: `${BASE}/mcp/server-card`,
        },
      ]);
    });
  }

  test('both card addresses serve the same document with the same ETag', async () => {
    const [a, b] = await Promise.all(CARD_PATHS.map((p) => get(p)));
    assert.equal(a!.headers.get('etag'), b!.headers.get('etag'));
    assert.equal(await a!.text(), await b!.text());
  });

  test('If-None-Match with the ETag answers 304 without a body; another tag gets the document', async () => {
    for (const path of ALL_PATHS) {
      const etag = (await get(path)).headers.get('etag')!;
      const again = await get(path, { 'If-None-Match': etag });
      assert.equal(again.status, 304, path);
      assert.equal(again.headers.get('etag'), etag);
      assert.equal(again.headers.get('access-control-allow-origin'), '*');
      assert.equal(await again.text(), '');
      assert.equal((await get(path, { 'If-None-Match': '"something-else"' })).status, 200, path);
    }
  });
});

describe('only reading', () => {
  test('a CORS preflight is answered with the CORS headers', async () => {
    for (const path of ALL_PATHS) {
      const response = await fetch(`${local}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://some-web-client.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'if-none-match',
        },
      });
      assert.equal(response.status, 204, path);
      assertDiscoveryHeaders(response);
    }
  });

  test('POST, PUT and DELETE are refused with 405 and Allow', async () => {
    for (const path of ALL_PATHS) {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const response = await fetch(`${local}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: '{"name":"evil"}',
        });
        assert.equal(response.status, 405, `${method} ${path}`);
        assert.equal(response.headers.get('allow'), 'GET, HEAD, OPTIONS');
        assert.equal(((await response.json()) as any).error.code, 'method_not_allowed');
      }
    }
    assert.equal((await card()).name, 'com.example.memory/cairn', 'the card did not change');
  });
});

describe('what the card says', () => {
  test('every URL is built from CAIRN_BASE_URL, none from the address Cairn listens on', async () => {
    const body = await card();
    const text = JSON.stringify(body);
    assert.ok(!text.includes('127.0.0.1'), 'the listening address is not public');
    assert.ok(!text.includes(String(server.cairn.config.port)), 'nor is the port');
    assert.equal(body.name, 'com.example.memory/cairn');
    assert.deepEqual(
      body.remotes.map((r: any) => [r.type, r.url]),
      [['streamable-http', `${BASE}/mcp`]],
    );
    assert.equal(body.websiteUrl, `${BASE}/`);
    const meta = body._meta['io.github.cairn/discovery'];
    assert.equal(meta.portalUrl, `${BASE}/`);
    const oauth = meta.authentication.find((a: any) => a.type === 'oauth2');
    assert.equal(oauth.protectedResourceMetadata, `${BASE}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(oauth.resource, `${BASE}/mcp`);
  });

  test('the auth it announces is what Cairn serves: the protected-resource document, and an API key with the installer User-Agent', async () => {
    const meta = (await card())._meta['io.github.cairn/discovery'];
    const oauth = meta.authentication.find((a: any) => a.type === 'oauth2');
    const prm = (await (await get(new URL(oauth.protectedResourceMetadata).pathname)).json()) as any;
    assert.equal(prm.resource, oauth.resource);
    assert.deepEqual(prm.authorization_servers, [oauth.authorizationServer]);
    const apiKey = meta.authentication.find((a: any) => a.type === 'api_key');
    assert.deepEqual(apiKey.requiredHeaders, { 'User-Agent': INSTALLER_USER_AGENT });
    const [remote] = (await card()).remotes;
    const headers = Object.fromEntries(remote.headers.map((h: any) => [h.name, h]));
    assert.equal(headers['User-Agent'].value, INSTALLER_USER_AGENT);
    assert.equal(headers.Authorization.isSecret, true);
    assert.equal(headers.Authorization.value, 'Bearer {api_key}');
  });

  test('its tools are the ones tools/list returns through the MCP SDK client: names, order, descriptions and input schemas', async () => {
    const { tools } = await client.listTools();
    const listed = (await card())._meta['io.github.cairn/discovery'].tools as any[];
    assert.deepEqual(
      listed.map((t) => t.name),
      tools.map((t) => t.name),
    );
    for (const tool of tools) {
      const onCard = listed.find((t) => t.name === tool.name);
      assert.equal(onCard.title, tool.title, tool.name);
      assert.equal(onCard.description, tool.description, tool.name);
      assert.deepEqual(onCard.inputSchema, tool.inputSchema, tool.name);
      assert.deepEqual(onCard.annotations, tool.annotations, tool.name);
    }
  });

  test('it lists every protocol version served: the 2026-07-28 ones server/discover offers, then each one initialize accepts', async () => {
    const [remote] = (await card()).remotes;
    const listed = remote.supportedProtocolVersions as string[];
    const discover = await fetch(`${local}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.owner.key}`,
        'user-agent': INSTALLER_USER_AGENT,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'card-check', version: '1' },
          },
        },
      }),
    });
    const discovered = await rpcResult(discover);
    assert.ok(discovered.result?.supportedVersions?.includes('2026-07-28'), JSON.stringify(discovered));
    const legacy = listed.filter((v) => !discovered.result.supportedVersions.includes(v));
    assert.deepEqual(
      listed.slice(0, listed.length - legacy.length),
      discovered.result.supportedVersions,
      'the 2026-era versions first, exactly as server/discover offers them',
    );
    assert.ok(legacy.includes('2025-11-25') && legacy.includes('2025-06-18'), listed.join(', '));
    for (const version of legacy) {
      const response = await fetch(`${local}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.owner.key}`,
          'user-agent': INSTALLER_USER_AGENT,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'card-check', version: '1' } },
        }),
      });
      assert.equal(response.status, 200, version);
      const text = await response.text();
      const json = JSON.parse(
        text.startsWith('{')
          ? text
          : text
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6),
      );
      assert.equal(json.result?.protocolVersion, version, `initialize with ${version}: ${text.slice(0, 200)}`);
      assert.equal(json.result.serverInfo.version, (await card()).version);
    }
  });

  test('nothing private: no user, email, organization, key or entry, while all of them exist', async () => {
    const texts = await Promise.all(ALL_PATHS.map(async (p) => (await get(p)).text()));
    const users = [tenant.owner, tenant.member, tenant.outsider];
    for (const text of texts) {
      for (const user of users) {
        for (const value of [user.email, user.id, user.key]) assert.ok(!text.includes(value), `leaks ${value}`);
      }
      assert.ok(!text.includes(tenant.orgName) && !text.includes(tenant.orgId), 'leaks the organization');
      assert.ok(!text.includes('cardamom') && !text.includes('Secret recipe'), 'leaks an entry');
      assert.doesNotMatch(text, /@/, 'no e-mail address at all');
      assert.doesNotMatch(text, /cairn_tkn_[A-Za-z0-9]/, 'no API key, only the prefix as a placeholder');
    }
  });
});

/** The JSON-RPC answer in a JSON or SSE response body. */
async function rpcResult(response: Response): Promise<any> {
  const text = await response.text();
  assert.equal(response.status, 200, text.slice(0, 300));
  return JSON.parse(
    text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
  );
}

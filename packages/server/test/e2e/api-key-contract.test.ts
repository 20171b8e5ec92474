import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { generateApiKey } from '../../src/auth/api-keys/key-format.js';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const UA = 'cairn-mcp-installer/1.0';
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Raw HTTP, so Host and Origin can be set the way an attacker's page would. */
function post(url: string, headers: Record<string, string>, body: unknown = LIST): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const message = (a: Answer) => (JSON.parse(a.body) as { error: { message: string } }).error.message;
const served = (a: Answer) => a.status === 200 && a.body.includes('"list_datapacks"');

let server: TestCairn;
let tenant: TestTenant;
let lookups = 0;

before(async () => {
  server = await startTestCairn({
    wrapStore: (store: KyselyStore) => {
      const original = store.findApiKeyByHash.bind(store);
      store.findApiKeyByHash = (hash: string) => {
        lookups++;
        return original(hash);
      };
      return store;
    },
  });
  tenant = await createTenant(server.cairn);
});
after(() => server?.close());

describe('the API-key contract on /mcp', () => {
  test('a valid Bearer key with the installer User-Agent is served', async () => {
    const answer = await post(server.mcpUrl, { authorization: `Bearer ${tenant.member.key}`, 'user-agent': UA });
    assert.ok(served(answer), answer.body);
  });

  test('a key without the "Bearer " prefix gets 401 saying the prefix is required', async () => {
    const answer = await post(server.mcpUrl, { authorization: tenant.member.key, 'user-agent': UA });
    assert.equal(answer.status, 401);
    assert.match(message(answer), /the "Bearer " prefix is required/);
  });

  test('a valid key without the installer User-Agent is refused, naming the header to add', async () => {
    for (const ua of [undefined, 'curl/8.5.0', 'cairn-mcp-installer/2.0', 'not-cairn-mcp-installer/1.0']) {
      const answer = await post(server.mcpUrl, {
        authorization: `Bearer ${tenant.member.key}`,
        ...(ua && { 'user-agent': ua }),
      });
      assert.equal(answer.status, 403, ua);
      assert.match(message(answer), /"User-Agent: cairn-mcp-installer\/1\.0"/);
    }
    assert.ok(
      served(
        await post(server.mcpUrl, {
          authorization: `Bearer ${tenant.member.key}`,
          'user-agent': 'cairn-mcp-installer/1.3 (linux)',
        }),
      ),
      '1.x is accepted',
    );
  });

  test('no credentials: 401 pointing at the protected resource metadata, with the scope to ask for', async () => {
    const answer = await post(server.mcpUrl, {});
    assert.equal(answer.status, 401);
    assert.equal(
      answer.headers['www-authenticate'],
      `Bearer resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="mcp offline_access"`,
    );
  });

  test('unknown, revoked, expired and malformed keys get the same 401; a bad checksum never reaches the database', async () => {
    const { key: revoked, record } = await createApiKey(server.cairn.domain, tenant.member.id, 'to revoke');
    assert.ok(
      served(await post(server.mcpUrl, { authorization: `Bearer ${revoked}`, 'user-agent': UA })),
      'works before revocation',
    );
    await revokeApiKey(server.cairn.domain, record.id);
    const { key: expired, record: expiring } = await createApiKey(server.cairn.domain, tenant.member.id, 'to expire', {
      expiresInDays: 1,
    });
    assert.ok(
      served(await post(server.mcpUrl, { authorization: `Bearer ${expired}`, 'user-agent': UA })),
      'works before it expires',
    );
    await server.cairn.store.db
      .updateTable('api_key')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', expiring.id)
      .execute();
    const unknown = generateApiKey();
    const badChecksum = `${tenant.member.key.slice(0, -1)}${tenant.member.key.endsWith('A') ? 'B' : 'A'}`;
    const answers = [];
    for (const key of [unknown, revoked, expired, badChecksum, 'cairn_tkn_short', 'sk-something-else']) {
      const before = lookups;
      answers.push(await post(server.mcpUrl, { authorization: `Bearer ${key}`, 'user-agent': UA }));
      const looked = lookups - before;
      assert.equal(
        looked,
        [unknown, revoked, expired].includes(key) ? 1 : 0,
        `database lookups for ${key.slice(0, 14)}…`,
      );
    }
    for (const a of answers) {
      assert.equal(a.status, 401);
      assert.equal(a.body, answers[0]!.body, 'same body whether or not the key ever existed');
      assert.equal(a.headers['www-authenticate'], answers[0]!.headers['www-authenticate']);
    }
    assert.match(message(answers[0]!), /not valid .*Settings > API Keys > Generate API key/);
  });

  test('the legacy API_KEY header is served with a Deprecation header and a warning naming the key id, never the key', async () => {
    const answer = await post(server.mcpUrl, { api_key: tenant.owner.key });
    assert.ok(served(answer), answer.body);
    assert.equal(answer.headers.deprecation, 'true');
    const warning = server.logs.find((l) => l.includes('legacy API_KEY header'));
    assert.ok(warning, 'a server-log warning');
    const { id } = (await server.cairn.store.listApiKeys(tenant.owner.id))[0]!;
    assert.ok(warning.includes(id), 'names the key id');
    assert.ok(!server.logs.some((l) => l.includes(tenant.owner.key.slice(10))), 'no log line holds the secret');
    assert.equal((await post(server.mcpUrl, { api_key: generateApiKey() })).status, 401);
  });

  test('Origin not allowed or a foreign Host: 403 (DNS-rebinding protection)', async () => {
    const auth = { authorization: `Bearer ${tenant.member.key}`, 'user-agent': UA };
    assert.equal((await post(server.mcpUrl, { ...auth, origin: 'https://evil.example' })).status, 403);
    assert.equal((await post(server.mcpUrl, { ...auth, host: 'evil.example' })).status, 403);
    assert.equal((await post(server.mcpUrl, { ...auth, origin: 'null' })).status, 403);
    assert.ok(
      served(await post(server.mcpUrl, { ...auth, origin: new URL(server.baseUrl).origin })),
      'its own origin is fine',
    );
  });

  test('last use and client are recorded without a database write per request', async () => {
    const { key, record } = await createApiKey(server.cairn.domain, tenant.owner.id, 'usage');
    assert.ok(
      served(
        await post(server.mcpUrl, {
          authorization: `Bearer ${key}`,
          'user-agent': 'cairn-mcp-installer/1.0 usage-probe',
        }),
      ),
    );
    assert.equal((await server.cairn.store.getApiKey(record.id))!.lastUsedAt, null, 'nothing written yet');
    await server.cairn.keys.flush();
    const stored = (await server.cairn.store.getApiKey(record.id))!;
    assert.ok(stored.lastUsedAt);
    assert.equal(stored.lastUsedClient, 'cairn-mcp-installer/1.0 usage-probe');
  });
});

describe('operator settings', () => {
  test('CAIRN_REQUIRE_USER_AGENT=false serves a key without the installer User-Agent', async () => {
    const relaxed = await startTestCairn({ env: { CAIRN_REQUIRE_USER_AGENT: 'false' } });
    try {
      const t = await createTenant(relaxed.cairn);
      assert.ok(
        served(await post(relaxed.mcpUrl, { authorization: `Bearer ${t.member.key}`, 'user-agent': 'curl/8' })),
      );
    } finally {
      await relaxed.close();
    }
  });

  test('CAIRN_ALLOW_LEGACY_API_KEY_HEADER=false refuses API_KEY with a message saying what to send', async () => {
    const strict = await startTestCairn({ env: { CAIRN_ALLOW_LEGACY_API_KEY_HEADER: 'false' } });
    try {
      const t = await createTenant(strict.cairn);
      const answer = await post(strict.mcpUrl, { api_key: t.member.key });
      assert.equal(answer.status, 401);
      assert.match(message(answer), /no longer accepted.*Authorization: Bearer/);
    } finally {
      await strict.close();
    }
  });
});

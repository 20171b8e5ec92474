// Issue 28 against a real Cairn on SQLite and PostgreSQL: distinct knowledge is never refused as a
// duplicate (MCP through the SDK client and the JSON API), partial updates keep what they do not
// name, key names are redacted, tag and author filters find matches ranked anywhere, and every
// route family answers with the security headers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PLANTED_SECRETS } from '@cairn/contract/testing/planted-secrets';
import type { Client } from '@modelcontextprotocol/client';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';
import { testEntry } from '../../src/testing/test-entry.js';

const AWS_KEY = PLANTED_SECRETS.find((p) => p.kind === 'aws-access-key')!.secret;

/** Pairs once refused as duplicates: each second text is different knowledge and must be stored. */
const DISTINCT = [
  ['Preference 1', 'Always use tool number 1 for builds.', 'Preference 2', 'Always use tool number 2 for builds.'],
  ['Python', 'Use Python 2 for the legacy scripts.', 'Python', 'Use Python 3 for the legacy scripts.'],
  ['Retries', 'Retry failed uploads 3 times before paging.', 'Retries', 'Retry failed uploads 5 times before paging.'],
  ['Logging', 'Always log request bodies in staging.', 'Logging', 'Never log request bodies in staging.'],
  [
    'Force push',
    'Do force-push to your own feature branches.',
    'Force push',
    'Do not force-push to your own feature branches.',
  ],
  [
    'Package manager',
    'Use pnpm for installing dependencies in the web app.',
    'Package manager',
    'Use yarn for installing dependencies in the web app.',
  ],
  [
    'Deploy host',
    'Deploy the API to api-1.internal.example.com.',
    'Deploy host',
    'Deploy the API to api-2.internal.example.com.',
  ],
  [
    'Config',
    'The service reads /etc/acme/config.yaml at start.',
    'Config',
    'The service reads /etc/acme/local.yaml at start.',
  ],
] as const;

forEachBackend((backend) => {
  describe(`nothing lost, nothing leaked (${backend.name})`, { skip: backend.skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    let owner: Client;
    before(async () => {
      server = await startTestCairn(backend.options);
      tenant = await createTenant(server.cairn);
      owner = await connectMcpClient(server.mcpUrl, tenant.owner.key);
    });
    after(async () => {
      await owner?.close();
      await server?.close();
    });

    const api = async (method: string, path: string, body?: unknown, key = tenant.owner.key) => {
      const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text) };
    };
    const newPack = async (name: string) =>
      (await callTool(owner, 'create_datapack', { name, scope: 'personal' })).datapack.id as string;

    test('MCP save_entry: numbers, versions, negations and named things are different knowledge, each stored', async () => {
      const datapack = await newPack('Distinct via MCP');
      for (const [t1, c1, t2, c2] of DISTINCT) {
        const first = await callTool(owner, 'save_entry', { datapack, title: t1, content: c1 });
        const second = await callTool(owner, 'save_entry', { datapack, title: t2, content: c2 });
        assert.deepEqual([first.status, second.status], ['created', 'created'], `${c1} / ${c2}: ${second.message}`);
        assert.notEqual(first.entry.id, second.entry.id);
      }
    });

    test('MCP save_entry: a near-duplicate is reported with the existing entry; allowSimilar saves it; an exact copy stays refused', async () => {
      const datapack = await newPack('Near via MCP');
      const first = await callTool(owner, 'save_entry', {
        datapack,
        title: 'Code review',
        content: 'Every pull request needs one approving review before merge.',
      });
      const near = await callTool(owner, 'save_entry', {
        datapack,
        title: 'Code review rule',
        content: 'Every pull request needs one approving review before the merge.',
      });
      assert.equal(near.status, 'duplicate');
      assert.equal(near.entry.id, first.entry.id);
      assert.equal(
        near.entry.content,
        'Every pull request needs one approving review before merge.',
        'the agent sees the existing text',
      );
      assert.match(near.message, /allowSimilar: true/);
      const forced = await callTool(owner, 'save_entry', {
        datapack,
        title: 'Code review rule',
        content: 'Every pull request needs one approving review before the merge.',
        allowSimilar: true,
      });
      assert.equal(forced.status, 'created');
      assert.notEqual(forced.entry.id, first.entry.id);
      const exact = await callTool(owner, 'save_entry', {
        datapack,
        title: 'Code review',
        content: 'Every pull request needs one approving review before merge.',
        allowSimilar: true,
      });
      assert.equal(exact.status, 'duplicate');
      assert.equal(exact.entry.id, first.entry.id);
    });

    test('JSON API POST /entries: distinct texts are 201; a refused save is 409 with the existing entry; allowSimilar is 201', async () => {
      const datapack = await newPack('Distinct via API');
      for (const [t1, c1, t2, c2] of DISTINCT) {
        const first = await api('POST', '/entries', { datapack, title: t1, content: c1 });
        const second = await api('POST', '/entries', { datapack, title: t2, content: c2 });
        assert.deepEqual([first.status, second.status], [201, 201], second.text);
      }
      const existing = await api('POST', '/entries', {
        datapack,
        title: 'Reviews',
        content: 'Reviewers answer within one working day.',
      });
      const refused = await api('POST', '/entries', {
        datapack,
        title: 'Reviews',
        content: 'Reviewers should answer within one working day, please.',
      });
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.json.error.code, 'duplicate');
      assert.match(refused.json.error.message, /allowSimilar: true/);
      assert.equal(refused.json.entry.id, existing.json.entry.id);
      assert.equal(refused.json.entry.content, 'Reviewers answer within one working day.');
      const forced = await api('POST', '/entries', {
        datapack,
        title: 'Reviews',
        content: 'Reviewers should answer within one working day, please.',
        allowSimilar: true,
      });
      assert.equal(forced.status, 201, forced.text);
      const exact = await api('POST', '/entries', {
        datapack,
        title: 'Reviews',
        content: 'Reviewers answer within one working day.',
        allowSimilar: true,
      });
      assert.equal(exact.status, 409);
      assert.equal(exact.json.exact, true);
      const listed = await api('GET', `/datapacks/${datapack}/entries?limit=200`);
      assert.equal(listed.json.entries.length, DISTINCT.length * 2 + 2);
    });

    // Each field an update leaves out stays as it was, through both adapters.
    const start = {
      kind: 'standard',
      title: 'Cache policy',
      content: 'Cache pricing answers for five minutes.',
      tags: ['cache', 'pricing'],
    };
    const changes: Record<string, Record<string, unknown>> = {
      tags: { content: 'Cache pricing answers for ten minutes.', title: 'Cache rule', kind: 'decision' },
      kind: { content: 'Cache pricing answers for ten minutes.', tags: ['cache'] },
      title: { kind: 'decision', tags: ['cache'] },
      datapack: {
        title: 'Cache rule',
        content: 'Cache pricing answers for ten minutes.',
        kind: 'decision',
        tags: ['speed'],
      },
    };
    for (const [field, change] of Object.entries(changes)) {
      for (const via of ['MCP update_entry', 'PATCH /api/v1/entries/:id'] as const) {
        test(`${via}: an update without ${field} keeps its ${field}`, async () => {
          const datapack = await newPack(`Partial ${field} ${via.slice(0, 5)}`);
          const created = await callTool(owner, 'save_entry', { datapack, ...start });
          const updated =
            via === 'MCP update_entry'
              ? (await callTool(owner, 'update_entry', { id: created.entry.id, expectedVersion: 1, ...change })).entry
              : (await api('PATCH', `/entries/${created.entry.id}`, { expectedVersion: 1, ...change })).json.entry;
          const read = (await api('GET', `/entries/${created.entry.id}`)).json.entry;
          for (const entry of [updated, read]) {
            assert.equal(entry.version, 2);
            const kept = field === 'datapack' ? entry.datapackId : entry[field];
            const was = field === 'datapack' ? datapack : start[field as keyof typeof start];
            assert.deepEqual(kept, was, `${field} changed: ${JSON.stringify(entry)}`);
            for (const [name, value] of Object.entries(change))
              assert.deepEqual(entry[name], value, `${name} was not applied`);
          }
        });
      }
    }

    test("an API key's name is stored redacted: the answer, GET /api/v1/keys and the table", async () => {
      const cookie = await signIn(server.baseUrl, tenant.owner.email);
      const session = (method: string, body?: unknown) =>
        fetch(`${server.baseUrl}/api/v1/keys`, {
          method,
          headers: { cookie, origin: server.baseUrl, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      const made = await session('POST', { name: `ci ${AWS_KEY}` });
      assert.equal(made.status, 201);
      const madeText = await made.text();
      assert.ok(!madeText.includes(AWS_KEY), 'the create answer echoes the secret');
      assert.equal(JSON.parse(madeText).record.name, 'ci [redacted:aws-access-key]');
      const listed = await (await session('GET')).text();
      assert.ok(!listed.includes(AWS_KEY), 'GET /api/v1/keys shows the secret');
      assert.ok(listed.includes('ci [redacted:aws-access-key]'));
      const rows = await server.cairn.store.db.selectFrom('api_key').select('name').execute();
      assert.ok(!JSON.stringify(rows).includes(AWS_KEY), 'the key table holds the secret');
    });

    test('tag and author filters find a match ranked below 500 others', async () => {
      const datapack = await newPack('Deep filter');
      const strong =
        'Deploy checklist: deploy the canary, deploy the workers, then deploy the web tier; the deploy checklist is the deploy runbook.';
      for (let i = 0; i < 520; i++) {
        await server.cairn.store.insertEntry(
          testEntry({
            id: `ent_deep_${i}`,
            datapackId: datapack,
            title: `Deploy checklist ${i}`,
            content: strong,
            createdBy: tenant.owner.id,
            updatedBy: tenant.owner.id,
          }),
        );
      }
      const weak = testEntry({
        id: 'ent_deep_weak',
        datapackId: datapack,
        title: 'Quarterly notes',
        content:
          'Notes from the quarterly planning: hiring, budgets, the office move, the offsite, and one deploy mentioned in passing among many other topics of the quarter.',
        tags: ['planning'],
        createdBy: tenant.member.id,
        updatedBy: tenant.member.id,
      });
      await server.cairn.store.insertEntry(weak);
      const ranked = await server.cairn.store.rankedEntries({
        datapackIds: [datapack],
        text: 'deploy checklist',
        limit: 1000,
      });
      const rank = ranked.findIndex((h) => h.entry.id === weak.id);
      assert.ok(rank >= 500, `the tagged entry ranks ${rank}: the test needs it below 500`);
      const byTag = await callTool(owner, 'search', { query: 'deploy checklist', datapack, tags: ['planning'] });
      assert.deepEqual(
        byTag.results.map((r: { entry: { id: string } }) => r.entry.id),
        [weak.id],
      );
      const byAuthor = await api(
        'GET',
        `/search?q=${encodeURIComponent('deploy checklist')}&datapack=${datapack}&author=${tenant.member.id}`,
      );
      assert.equal(byAuthor.status, 200, byAuthor.text);
      assert.deepEqual(
        byAuthor.json.results.map((r: { entry: { id: string } }) => r.entry.id),
        [weak.id],
      );
      const none = await callTool(owner, 'search', {
        query: 'deploy checklist',
        datapack,
        tags: ['planning', 'absent'],
      });
      assert.deepEqual(none.results, []);
    });

    test('every route family answers with nosniff and the JSON API headers', async () => {
      const mcpInit = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      const mcpHeaders = {
        authorization: `Bearer ${tenant.owner.key}`,
        'user-agent': INSTALLER_USER_AGENT,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const requests: [string, string, RequestInit?][] = [
        ['JSON API, authenticated', '/api/v1/datapacks', { headers: { authorization: `Bearer ${tenant.owner.key}` } }],
        ['JSON API, no key', '/api/v1/datapacks'],
        ['JSON API, unknown path', '/api/v1/nothing-here'],
        [
          'JSON API, bad JSON',
          '/api/v1/entries',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${tenant.owner.key}`, 'content-type': 'application/json' },
            body: '{',
          },
        ],
        ['MCP', '/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify(mcpInit) }],
        [
          'MCP, no credential',
          '/mcp',
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(mcpInit) },
        ],
        ['better-auth', '/api/auth/get-session'],
        ['OAuth discovery', '/.well-known/oauth-authorization-server'],
        ['unknown discovery', '/.well-known/nothing'],
        ['health', '/healthz'],
        ['portal page', '/'],
        ['URL guard refusal', '/api/v1/entries/%00'],
        [
          'body limit refusal',
          '/api/v1/entries',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${tenant.owner.key}`, 'content-type': 'application/json' },
            body: `{"content":"${'x'.repeat(3_000_000)}"}`,
          },
        ],
      ];
      for (const [family, path, init] of requests) {
        const res = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual', ...init });
        await res.arrayBuffer();
        const h = (name: string) => res.headers.get(name);
        assert.equal(h('x-content-type-options'), 'nosniff', `${family} (${res.status})`);
        assert.ok(h('referrer-policy'), `${family}: Referrer-Policy`);
        assert.equal(h('x-frame-options'), 'DENY', `${family}: X-Frame-Options`);
        assert.ok(h('cache-control'), `${family}: Cache-Control`);
        if (!h('content-type')?.startsWith('text/html'))
          assert.match(h('content-security-policy') ?? '', /frame-ancestors 'none'/, `${family}: CSP`);
        if (path.startsWith('/api/') || path === '/mcp')
          assert.match(h('cache-control') ?? '', /no-store/, `${family}: no-store`);
      }
      // The portal keeps its own policy.
      const page = await fetch(`${server.baseUrl}/`);
      await page.arrayBuffer();
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    });
  });
});

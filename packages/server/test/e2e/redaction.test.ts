// Every write path (MCP save_entry and update_entry, JSON API POST and PATCH /entries, capture)
// against a real Cairn on SQLite and PostgreSQL: the planted secrets never come back, through
// search, get_entry or the write's own answer, and are not in the database; the markers are, and
// the write's answer says what was removed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import type { Client } from '@modelcontextprotocol/client';
import { exportLines, planOperatorExport } from '../../src/domain/export.js';
import { importFile } from '../../src/domain/import.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

/** Each rule the fixture expects, with how many of its secrets the fixture holds. */
const expectedRules = new Map<string, number>();
for (const { rule } of PLANTED_SECRETS) expectedRules.set(rule, (expectedRules.get(rule) ?? 0) + 1);

const AWS_KEY = PLANTED_SECRETS.find((p) => p.kind === 'aws-access-key')!.secret;

/** Formats once stored verbatim (each also inside plantedSecretsText, so every entry write path above covers them). */
const ISSUE_28 = PLANTED_SECRETS.filter((p) =>
  [
    'netrc-one-line',
    'netrc-multi-line',
    'sshpass',
    'mysql-p',
    'db-pass',
    'stripe-webhook-secret',
    'gcp-private-key-id',
    'pypi-token-twine',
    'vault-token-short',
    'gcp-oauth-client-secret',
    'sentry-dsn',
    'cookie-header',
    'putty-private-key',
  ].includes(p.kind),
);

/**
 * Fails naming the kinds of every planted secret found in `text` (never printing the secret). A
 * secret of a few characters ("x7q") turns up by chance in random ids, so those are looked for
 * as planted, with what stood before them.
 */
function assertNoSecret(text: string, where: string) {
  const leaked = PLANTED_SECRETS.filter((p) => text.includes(p.secret.length < 8 ? p.line : p.secret)).map(
    (p) => p.kind,
  );
  assert.deepEqual(leaked, [], `${where} returned secrets verbatim`);
}

function assertMarkers(text: string, where: string) {
  const missing = [...expectedRules.keys()].filter((rule) => !text.includes(`[redacted:${rule}]`));
  assert.deepEqual(missing, [], `${where} lacks markers`);
}

/** The answer lists every rule the fixture triggers, each at least as often as planted; never a secret. */
function assertRedactedList(redacted: { rule: string; count: number }[], where: string) {
  const counts = new Map(redacted.map((f) => [f.rule, f.count]));
  for (const [rule, n] of expectedRules)
    assert.ok((counts.get(rule) ?? 0) >= n, `${where}: ${rule} listed ${counts.get(rule) ?? 0} times, planted ${n}`);
  assertNoSecret(JSON.stringify(redacted), where);
}

forEachBackend((backend) => {
  describe(`redaction on every write path (${backend.name})`, { skip: backend.skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    let owner: Client;
    let member: Client;
    before(async () => {
      server = await startTestCairn({ ...backend.options, env: { CAIRN_CAPTURE_TURNS_PER_MINUTE: '100' } });
      tenant = await createTenant(server.cairn);
      [owner, member] = await Promise.all([
        connectMcpClient(server.mcpUrl, tenant.owner.key),
        connectMcpClient(server.mcpUrl, tenant.member.key),
      ]);
    });
    after(async () => {
      await Promise.all([owner?.close(), member?.close()]);
      await server?.close();
    });

    const api = async (key: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'cairn-test' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, json: JSON.parse(text) };
    };

    /** Reads the entry back every way there is and checks nothing secret comes back. */
    async function readBack(key: string, client: Client, id: string, word: string, where: string) {
      const viaMcpGet = await client.callTool({ name: 'get_entry', arguments: { id, includeHistory: true } });
      const viaMcpSearch = await client.callTool({ name: 'search', arguments: { query: `${word} deploy billing` } });
      const viaApiGet = await api(key, 'GET', `/entries/${id}?history=true`);
      const viaApiSearch = await api(key, 'GET', `/search?q=${encodeURIComponent(`${word} deploy billing`)}`);
      assert.equal(viaApiGet.status, 200);
      assert.equal(viaApiSearch.status, 200);
      const found = (viaMcpSearch.structuredContent as { results: { entry: { id: string } }[] }).results.map(
        (r) => r.entry.id,
      );
      assert.ok(found.includes(id), `${where}: MCP search does not find the entry`);
      assert.ok(
        (viaApiSearch.json as { results: { entry: { id: string } }[] }).results.some((r) => r.entry.id === id),
        `${where}: /api/v1/search does not find it`,
      );
      for (const [how, answer] of [
        ['MCP get_entry', viaMcpGet],
        ['MCP search', viaMcpSearch],
        ['GET /entries/:id', viaApiGet.text],
        ['/api/v1/search', viaApiSearch.text],
      ] as const) {
        const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
        assertNoSecret(text, `${where} → ${how}`);
        assertMarkers(text, `${where} → ${how}`);
      }
      // Searching for secrets themselves finds nothing that holds them.
      for (const query of [AWS_KEY, 'hunter2-but-longer', '4111 1111 1111 1111', 'sunflower77']) {
        const hits = await api(key, 'GET', `/search?q=${encodeURIComponent(query)}`);
        assertNoSecret(hits.text, `${where} → search for a secret`);
      }
    }

    /** No planted secret anywhere in the entry tables, current rows or history. */
    async function assertStorageClean() {
      const rows = await server.cairn.store.db.selectFrom('entry').select(['title', 'content', 'tags']).execute();
      const versions = await server.cairn.store.db.selectFrom('entry_version').selectAll().execute();
      assertNoSecret(JSON.stringify([rows, versions]), 'the database');
    }

    test('MCP save_entry: title, content and tags redacted; the result lists what was removed', async () => {
      const result = await owner.callTool({
        name: 'save_entry',
        arguments: {
          title: `Deploy notes, key ${AWS_KEY}`,
          content: `quokkasave ${plantedSecretsText}`,
          tags: ['deploy', AWS_KEY],
        },
      });
      assert.ok(!result.isError, JSON.stringify(result.content));
      assertNoSecret(JSON.stringify(result), 'save_entry');
      const saved = result.structuredContent as {
        status: string;
        entry: { id: string; title: string; tags: string[] };
        redacted: { rule: string; count: number }[];
        message: string;
      };
      assert.equal(saved.status, 'created');
      assert.equal(saved.entry.title, 'Deploy notes, key [redacted:aws-access-key]');
      assert.deepEqual(saved.entry.tags, ['deploy', '[redacted:aws-access-key]']);
      assertRedactedList(saved.redacted, 'save_entry');
      assert.equal(
        saved.redacted.find((f) => f.rule === 'aws-access-key')!.count,
        expectedRules.get('aws-access-key')! + 2,
      );
      const text = (result.content as { type: string; text: string }[])[0]!.text;
      assert.match(text, /Removed \d+ secrets before storing \(.*aws-access-key ×3/);
      await readBack(tenant.owner.key, owner, saved.entry.id, 'quokkasave', 'save_entry');
      await assertStorageClean();
    });

    test('MCP update_entry: the change is redacted and the result says so', async () => {
      const plain = await callTool(owner, 'save_entry', {
        title: 'Billing runbook',
        content: 'Restart the workers after a deploy.',
      });
      assert.deepEqual(plain.redacted, []);
      const result = await owner.callTool({
        name: 'update_entry',
        arguments: { id: plain.entry.id, expectedVersion: 1, content: `quokkaupdate ${plantedSecretsText}` },
      });
      assert.ok(!result.isError, JSON.stringify(result.content));
      assertNoSecret(JSON.stringify(result), 'update_entry');
      const updated = result.structuredContent as {
        entry: { version: number };
        redacted: { rule: string; count: number }[];
      };
      assert.equal(updated.entry.version, 2);
      assertRedactedList(updated.redacted, 'update_entry');
      assert.match((result.content as { text: string }[])[0]!.text, /Removed \d+ secrets before storing/);
      await readBack(tenant.owner.key, owner, plain.entry.id, 'quokkaupdate', 'update_entry');
      await assertStorageClean();
    });

    test('JSON API POST /api/v1/entries: redacted, and the answer lists the redactions', async () => {
      const res = await api(tenant.member.key, 'POST', '/entries', {
        title: 'Deploy settings',
        content: `quokkapost ${plantedSecretsText}`,
        tags: ['ops'],
      });
      assert.equal(res.status, 201, res.text);
      assertNoSecret(res.text, 'POST /entries');
      assertMarkers(res.text, 'POST /entries');
      assertRedactedList(res.json.redacted, 'POST /entries');
      await readBack(tenant.member.key, member, res.json.entry.id, 'quokkapost', 'POST /entries');
      await assertStorageClean();
    });

    test('JSON API PATCH /api/v1/entries/:id: redacted, and the answer lists the redactions', async () => {
      const created = await api(tenant.member.key, 'POST', '/entries', {
        title: 'Cache notes',
        content: 'Redis holds sessions for 30 minutes.',
      });
      assert.equal(created.status, 201);
      assert.deepEqual(created.json.redacted, []);
      const res = await api(tenant.member.key, 'PATCH', `/entries/${created.json.entry.id}`, {
        expectedVersion: 1,
        content: `quokkapatch ${plantedSecretsText}`,
      });
      assert.equal(res.status, 200, res.text);
      assertNoSecret(res.text, 'PATCH /entries/:id');
      assertRedactedList(res.json.redacted, 'PATCH /entries/:id');
      assert.equal(res.json.entry.version, 2);
      await readBack(tenant.member.key, member, created.json.entry.id, 'quokkapatch', 'PATCH /entries/:id');
      await assertStorageClean();
    });

    test('datapack name and description (MCP create_datapack, POST and PATCH /api/v1/datapacks): each issue-28 format redacted, with its marker', async () => {
      assert.equal(ISSUE_28.length, 13);
      for (const [i, p] of ISSUE_28.entries()) {
        // The name too, where the format fits on one short line (a name holds at most 80 characters).
        const name = !p.line.includes('\n') && p.line.length <= 70 ? `${i} ${p.line}` : `Ops ${i}`;
        const viaMcp = await owner.callTool({
          name: 'create_datapack',
          arguments: { name, scope: 'personal', description: p.line },
        });
        assert.ok(!viaMcp.isError, JSON.stringify(viaMcp.content));
        assertNoSecret(JSON.stringify(viaMcp), `create_datapack (${p.kind})`);
        assert.ok(
          JSON.stringify(viaMcp.structuredContent).includes(`[redacted:${p.rule}]`),
          `create_datapack (${p.kind}) lacks its marker`,
        );
        const viaApi = await api(tenant.member.key, 'POST', '/datapacks', {
          name: `Api ${i}`,
          scope: 'personal',
          description: p.line,
        });
        assert.equal(viaApi.status, 201, viaApi.text);
        assertNoSecret(viaApi.text, `POST /datapacks (${p.kind})`);
        assert.ok(
          viaApi.json.datapack.description.includes(`[redacted:${p.rule}]`),
          `POST /datapacks (${p.kind}): ${viaApi.json.datapack.description}`,
        );
        const patched = await api(tenant.member.key, 'PATCH', `/datapacks/${viaApi.json.datapack.id}`, {
          description: `changed: ${p.line}`,
        });
        assert.equal(patched.status, 200, patched.text);
        assertNoSecret(patched.text, `PATCH /datapacks (${p.kind})`);
      }
      const rows = await server.cairn.store.db.selectFrom('datapack').select(['name', 'description']).execute();
      assertNoSecret(JSON.stringify(rows), 'the datapack table');
    });

    test('import: a datapack name and description and its entries are redacted, and the report counts them', async () => {
      const pack = await callTool(owner, 'create_datapack', {
        name: 'Import source',
        scope: 'personal',
        description: 'plain',
      });
      await callTool(owner, 'save_entry', {
        datapack: pack.datapack.id,
        title: 'Import runbook',
        content: 'quokkaimport plain content',
      });
      const plan = await planOperatorExport(server.cairn.domain, undefined, { datapack: pack.datapack.id });
      let file = '';
      for await (const chunk of exportLines(server.cairn.domain, plan)) file += chunk;
      const secretDescription = ISSUE_28.map((p) => p.line)
        .join('\n')
        .slice(0, 2000);
      const planted = ISSUE_28.filter((p) => secretDescription.includes(p.secret));
      const lines = file
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      for (const line of lines) {
        if (line.type === 'datapack')
          Object.assign(line, { id: `${line.id}x`, name: `Imported ${AWS_KEY}`, description: secretDescription });
        if (line.type === 'entry')
          Object.assign(line, {
            id: `${line.id}x`,
            datapack: `${line.datapack}x`,
            content: `quokkaimport ${plantedSecretsText}`,
          });
        if (line.type === 'entry') for (const v of line.history) v.content = `quokkaimport ${plantedSecretsText}`;
      }
      const report = await importFile(server.cairn.domain, () => lines.map((l) => JSON.stringify(l)));
      assert.equal(report.datapacks.created, 1, JSON.stringify(report));
      assertNoSecret(JSON.stringify(report), 'the import report');
      assert.ok((report.redacted.find((f) => f.rule === 'aws-access-key')?.count ?? 0) >= 1);
      const stored = await server.cairn.store.getAnyDatapack(`${pack.datapack.id}x`);
      assert.ok(stored, 'the imported datapack exists');
      assert.equal(stored.name, 'Imported [redacted:aws-access-key]');
      assert.ok(planted.length >= 10, `${planted.length} formats fit the description`);
      for (const p of planted)
        assert.ok(stored.description.includes(`[redacted:${p.rule}]`), `imported description lacks ${p.rule}`);
      assertNoSecret(JSON.stringify(stored), 'the imported datapack');
      await assertStorageClean();
    });

    test('POST /api/v1/capture: a turn sent unredacted (an old or modified client) is redacted on the server, and the answer says so', async () => {
      const turn = {
        id: `redaction-${backend.name}`,
        role: 'user',
        text: `quokkacapture ${plantedSecretsText}`,
        client: 'claude-code',
        sessionId: 's-1',
        project: 'billing',
        at: new Date().toISOString(),
      };
      const res = await api(tenant.owner.key, 'POST', '/capture', { turns: [turn] });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.stored, 1);
      assertRedactedList(res.json.redacted, 'POST /capture');
      const hits = await callTool(owner, 'search', { query: 'quokkacapture deploy billing' });
      const id = hits.results.find((r: { entry: { kind: string } }) => r.entry.kind === 'conversation')?.entry
        .id as string;
      assert.ok(id, 'the captured turn is searchable');
      await readBack(tenant.owner.key, owner, id, 'quokkacapture', 'POST /capture');
      await assertStorageClean();
    });
  });
});

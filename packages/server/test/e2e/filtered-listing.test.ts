import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { callTool, callToolError, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

forEachBackend(({ name: backend, skip, options }) => {
  describe(`a search with filters and no words lists matching entries newest first (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    const api = (key: string, path: string, init: RequestInit = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      });
    const save = async (key: string, body: Record<string, unknown>) => {
      const r = await api(key, '/api/v1/entries', { method: 'POST', body: JSON.stringify(body) });
      assert.equal(r.status, 201, await r.clone().text());
      // updated_at has millisecond precision: keep the order unambiguous.
      await new Promise((res) => setTimeout(res, 15));
      return ((await r.json()) as { entry: { id: string } }).entry.id;
    };

    test('kind filter, no words: exactly the caller’s matching entries, newest first; a stranger’s never', async () => {
      const key = tenant.member.key;
      const first = await save(key, { title: 'Use tabs', content: 'Indent with tabs.', kind: 'policy' });
      await save(key, { title: 'A note', content: 'Just a note.', kind: 'note' });
      const second = await save(key, { title: 'Review PRs', content: 'Every PR is reviewed.', kind: 'policy' });
      await save(tenant.outsider.key, { title: 'Outsider rule', content: 'Not yours.', kind: 'policy' });

      const r = await api(key, '/api/v1/search?kind=policy');
      assert.equal(r.status, 200, await r.clone().text());
      const ids = ((await r.json()) as { results: { entry: { id: string } }[] }).results.map((h) => h.entry.id);
      assert.deepEqual(ids, [second, first]);

      const limited = (await (await api(key, '/api/v1/search?kind=policy&limit=1')).json()) as {
        results: { entry: { id: string } }[];
      };
      assert.deepEqual(
        limited.results.map((h) => h.entry.id),
        [second],
      );

      const client = await connectMcpClient(server.mcpUrl, key);
      try {
        const out = await callTool<{ results: { entry: { id: string } }[] }>(client, 'search', { kinds: ['policy'] });
        assert.deepEqual(
          out.results.map((h) => h.entry.id),
          [second, first],
        );
        const err = await callToolError(client, 'search', {});
        assert.match(JSON.stringify(err), /give a filter/);
      } finally {
        await client.close();
      }
    });

    test('no words and no filter is still a clear 400', async () => {
      const r = await api(tenant.member.key, '/api/v1/search');
      assert.equal(r.status, 400);
      const body = (await r.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'invalid_input');
      assert.match(body.error.message, /say a few words to search for, or give a filter/);
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { runCli } from '../../src/testing/run-cli.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

forEachBackend(({ name: backend, skip, options }) => {
  describe(`cairn prints no terminal escape from a stored name (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    const cairn = (...args: string[]) => runCli(server, ...args);

    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('key names and clients with escape sequences: stored clean, and never printed raw by keys list or audit', async () => {
      const hostile = 'ops\u001b[2J\u001b]8;;https://evil.example\u0007laptop\u001b]8;;\u0007\nFAKE\u202eexe';
      const { record: stored } = await createApiKey(server.cairn.domain, tenant.member.id, hostile);
      assert.equal(
        stored.name,
        'ops[2J]8;;https://evil.examplelaptop]8;; FAKEexe',
        'the stored name has no control or direction character',
      );
      // Names stored before this check, and clients' names, are escaped when printed.
      await server.cairn.store.db
        .updateTable('api_key')
        .set({ name: hostile, last_used_at: new Date().toISOString(), last_used_client: 'Cursor\u001b[31m\r\nspoof' })
        .where('id', '=', stored.id)
        .execute();
      const listed = await cairn('keys', 'list', '--user', tenant.member.email);
      assert.equal(listed.code, 0, listed.stderr);
      await revokeApiKey(server.cairn.domain, stored.id); // its audit event names the hostile name
      await server.cairn.domain.audit.flush();
      const audited = await cairn('audit', '--kind', 'key.revoked');
      assert.ok(audited.stdout.includes('FAKE'), audited.stdout);
      for (const out of [listed.stdout, listed.stderr, audited.stdout]) {
        assert.ok(
          // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be printed
          !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(out),
          JSON.stringify(out),
        );
      }
      const line = listed.stdout.split('\n').find((l) => l.startsWith(stored.id))!;
      assert.ok(line.includes('ops\\x1b[2J'), line);
      assert.ok(line.includes('by Cursor\\x1b[31m\\r\\nspoof'), line);
      assert.equal(listed.stdout.split('\n').filter((l) => l.includes('FAKE')).length, 1, 'no extra line');
    });

    test('keys list names a known client by its product, version kept', async () => {
      const { record } = await createApiKey(server.cairn.domain, tenant.member.id, 'codex laptop');
      await server.cairn.store.db
        .updateTable('api_key')
        .set({ last_used_at: new Date().toISOString(), last_used_client: 'codex-mcp-client 0.61.0' })
        .where('id', '=', record.id)
        .execute();
      const listed = await cairn('keys', 'list', '--user', tenant.member.email);
      const line = listed.stdout.split('\n').find((l) => l.startsWith(record.id))!;
      assert.ok(line.includes('by Codex 0.61.0'), line);
    });
  });
});

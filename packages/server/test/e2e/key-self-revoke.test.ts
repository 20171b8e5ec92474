import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/domain/api-keys.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

forEachBackend(({ name: backend, skip, options }) => {
  describe(`DELETE /api/v1/keys/self: a key revokes itself (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    const revokeSelf = (key?: string) =>
      fetch(`${server.baseUrl}/api/v1/keys/self`, {
        method: 'DELETE',
        headers: { 'user-agent': 'cairn-mcp-installer/1.0', ...(key && { authorization: `Bearer ${key}` }) },
      });
    const datapacks = (key: string) =>
      fetch(`${server.baseUrl}/api/v1/datapacks`, { headers: { authorization: `Bearer ${key}` } });

    test('the key that sends the request is revoked at once, and only that key', async () => {
      const { key: old, record } = await createApiKey(server.cairn.domain, tenant.member.id, 'cursor on laptop');
      const { key: other } = await createApiKey(server.cairn.domain, tenant.member.id, 'codex on laptop');
      assert.equal((await datapacks(old)).status, 200);
      const res = await revokeSelf(old);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { key: { id: string; revokedAt: string | null; name: string } };
      assert.equal(body.key.id, record.id);
      assert.ok(body.key.revokedAt, 'answered with the revoked record');
      assert.ok(!JSON.stringify(body).includes(old), 'the key itself is not echoed');
      assert.equal((await datapacks(old)).status, 401, 'the revoked key stops working at once');
      assert.equal((await datapacks(other)).status, 200, "the user's other keys keep working");
      assert.equal((await datapacks(tenant.member.key)).status, 200);
      const again = await revokeSelf(old);
      assert.equal(again.status, 401, 'a revoked key cannot authenticate, even to revoke itself');
      const stored = (await server.cairn.store.listApiKeys(tenant.member.id)).find((k) => k.id === record.id);
      assert.ok(stored?.revokedAt, `revoked in the ${backend} store`);
    });

    test('without a key it is refused; /keys/<id> still needs a portal session', async () => {
      assert.equal((await revokeSelf()).status, 401);
      const { record } = await createApiKey(server.cairn.domain, tenant.owner.id, 'spare');
      const byKey = await fetch(`${server.baseUrl}/api/v1/keys/${record.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tenant.owner.key}` },
      });
      assert.equal(byKey.status, 403, 'a key still cannot revoke another key');
      assert.equal((await datapacks(tenant.owner.key)).status, 200);
    });

    test('a read-only key stays under the read-only gate: it cannot revoke itself either', async () => {
      const { key } = await createApiKey(server.cairn.domain, tenant.member.id, 'reader', { scope: 'read' });
      assert.equal((await revokeSelf(key)).status, 403);
      assert.equal((await datapacks(key)).status, 200, 'still active');
    });
  });
});

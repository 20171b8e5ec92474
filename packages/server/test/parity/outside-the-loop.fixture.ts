// For backend-parity.test.ts: a made-up suite that runs one describe on each backend but starts one more
// Cairn outside it, on SQLite only. The guard must name that call.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { startTestCairn } from '../../src/testing/test-cairn.js';

forEachBackend(({ name, skip, options }) => {
  describe(`answers (${name})`, { skip }, () => {
    test('/healthz', async () => {
      const server = await startTestCairn(options);
      assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
      await server.close();
    });
  });
});

test('/healthz once more', async () => {
  const server = await startTestCairn();
  assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
  await server.close();
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestCairn } from '../../src/testing/test-cairn.js';

// The portal's Connect dialog tells loopback-callback clients (Kiro, command-line agents) whether OAuth works here.
test('/api/v1/config says whether loopback OAuth callbacks are accepted, following CAIRN_OAUTH_ALLOW_LOOPBACK', async () => {
  for (const [env, expected] of [
    [{}, true],
    [{ CAIRN_OAUTH_ALLOW_LOOPBACK: 'false' }, false],
  ] as const) {
    const server = await startTestCairn({ env });
    try {
      const res = await fetch(`${server.baseUrl}/api/v1/config`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { oauthLoopbackAllowed?: unknown };
      assert.equal(body.oauthLoopbackAllowed, expected, JSON.stringify(env));
    } finally {
      await server.close();
    }
  }
});

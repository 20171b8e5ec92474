import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { startTestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

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

// The Connect dialog tells Codex users whether its metadata document is pinned here or must be fetched from chatgpt.com.
test('/api/v1/config lists the pinned client_ids (CAIRN_OAUTH_PINNED_CLIENTS), none when unset', async () => {
  const id = 'https://chatgpt.com/oauth/codex/client.json';
  const file = join(mkdtempSync(join(tmpdir(), 'cairn-pins-')), 'pins.json');
  writeFileSync(
    file,
    JSON.stringify({
      [id]: {
        client_id: id,
        redirect_uris: ['http://127.0.0.1:1455/auth/callback'],
        token_endpoint_auth_method: 'none',
      },
    }),
  );
  for (const [env, expected] of [
    [{}, []],
    [{ CAIRN_OAUTH_PINNED_CLIENTS: file }, [id]],
  ] as const) {
    const server = await startTestCairn({ env });
    try {
      const body = (await (await fetch(`${server.baseUrl}/api/v1/config`)).json()) as { oauthPinnedClients?: unknown };
      assert.deepEqual(body.oauthPinnedClients, expected, JSON.stringify(env));
    } finally {
      await server.close();
    }
  }
});

// The Connect dialog's Claude Code automatic mode passes this as --marketplace; unset, the installer uses its own copy.
test('/api/v1/config carries CAIRN_PLUGIN_MARKETPLACE when set, and nothing when unset; a value that is no git source is refused at start', async () => {
  for (const [env, expected] of [
    [{}, undefined],
    [{ CAIRN_PLUGIN_MARKETPLACE: 'https://git.example.com/team/cairn.git' }, 'https://git.example.com/team/cairn.git'],
    [{ CAIRN_PLUGIN_MARKETPLACE: ' acme/cairn ' }, 'acme/cairn'],
  ] as const) {
    const server = await startTestCairn({ env });
    try {
      const body = (await (await fetch(`${server.baseUrl}/api/v1/config`)).json()) as { pluginMarketplace?: unknown };
      assert.equal(body.pluginMarketplace, expected, JSON.stringify(env));
    } finally {
      await server.close();
    }
  }
  for (const bad of ['/srv/cairn', 'https://x.example.com/a b', 'acme/cairn; rm -rf ~', 'file:///etc']) {
    await assert.rejects(
      () => startTestCairn({ env: { CAIRN_PLUGIN_MARKETPLACE: bad } }),
      /CAIRN_PLUGIN_MARKETPLACE.*must be a git URL/s,
      bad,
    );
  }
});

// The real Claude Code (test-clients/, 2.1.330) speaks MCP 2026-07-28: no initialize, server/discover
// and its clientInfo in every request's _meta. With the entry the installer writes, `claude mcp list`
// connects, and the Connect dialog's status endpoint names it "Claude Code 2.1.x".
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createSetupCode } from '../../../server/src/domain/setup-codes.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { createTenant, type TestTenant } from '../../../server/src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../../server/src/testing/test-cairn.js';
import { tempMachine } from '../../src/testing/temp-machine.js';

runFileOnEachBackend();

const run = promisify(execFile);

let cairn: TestCairn;
let tenant: TestTenant;
before(async () => {
  cairn = await startTestCairn();
  tenant = await createTenant(cairn.cairn);
});
after(() => cairn?.close());

/** The portal's session for a tenant user, as the browser holds it. */
async function sessionCookie(email: string): Promise<string> {
  const signIn = await fetch(`${cairn.baseUrl}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(cairn.baseUrl).origin },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  });
  assert.equal(signIn.status, 200);
  return signIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

test('the real `claude mcp list`, with the entry the installer wrote, connects and is named "Claude Code 2.1.x" by the Connect dialog', {
  timeout: 180_000,
}, async () => {
  const m = tempMachine({ programs: { claude: clientBin('claude') } });
  try {
    const env = {
      ...m.env,
      CLAUDE_CONFIG_DIR: join(m.home, '.claude'),
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    } as Record<string, string>;
    Object.assign(m.env, env);
    const since = new Date().toISOString();
    const code = (await createSetupCode(cairn.cairn.domain, tenant.member.id)).code;
    assert.equal(
      await m.install('--client', 'claude-code', '--url', cairn.baseUrl, '--setup-code', code, '--yes'),
      0,
      [...m.lines, ...m.errors].join('\n'),
    );
    const cookie = await sessionCookie(tenant.member.email);
    const status = async () =>
      (
        (await (
          await fetch(`${cairn.baseUrl}/api/v1/keys/connected?since=${encodeURIComponent(since)}`, {
            headers: { cookie },
          })
        ).json()) as { connection: { client: string | null } | null }
      ).connection;
    assert.match(
      (await status())?.client ?? '',
      /^cairn-mcp-installer\//,
      "before Claude Code runs, only the installer's check has connected",
    );

    const { stdout } = await run(clientBin('claude'), ['mcp', 'list'], { env, cwd: m.home, timeout: 90_000 });
    assert.match(stdout, /cairn: .*[✓✔] Connected/, stdout);
    await cairn.cairn.keys.flush();
    assert.match((await status())?.client ?? '', /^Claude Code 2\.1\.\d+$/);
    const keys = await cairn.cairn.store.listApiKeys(tenant.member.id);
    assert.ok(
      keys.some((k) => /^Claude Code 2\.1\.\d+$/.test(k.lastUsedClient ?? '')),
      'Settings > API keys: last used by Claude Code',
    );
  } finally {
    m.cleanup();
  }
});

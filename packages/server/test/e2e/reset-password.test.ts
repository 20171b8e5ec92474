// The operator's `cairn users reset-password`: the policy applies, the old password and every session stop working.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { resetPassword } from '../../src/domain/accounts.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { cairnCommand } from '../../src/testing/cairn-process.js';
import { emptyStorage } from '../../src/testing/run-cli.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const NEW = 'amber lantern ridge ninety';

forEachBackend(({ name: backend, skip, options }) => {
  describe(`a reset password ends the old one and every session (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    const signIn = (email: string, password: string) =>
      fetch(`${server.baseUrl}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: new URL(server.baseUrl).origin },
        body: JSON.stringify({ email, password }),
      });

    test('old password refused, old session signed out, new password accepted', async () => {
      const before = await signIn(tenant.member.email, 'correct horse battery');
      assert.equal(before.status, 200);
      const cookie = before.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      assert.equal((await fetch(`${server.baseUrl}/api/v1/me`, { headers: { cookie } })).status, 200);

      await resetPassword(server.cairn.domain, server.cairn.auth, tenant.member.email.toUpperCase(), NEW);
      assert.equal(
        (await fetch(`${server.baseUrl}/api/v1/me`, { headers: { cookie } })).status,
        401,
        'the old session ended',
      );
      assert.equal((await signIn(tenant.member.email, 'correct horse battery')).status, 401);
      assert.equal((await signIn(tenant.member.email, NEW)).status, 200);
      assert.equal(
        (
          await fetch(`${server.baseUrl}/api/v1/datapacks`, {
            headers: { authorization: `Bearer ${tenant.member.key}` },
          })
        ).status,
        200,
        'API keys are credentials of their own and keep working',
      );
    });

    test('a weak password or an unknown person changes nothing and says what to do', async () => {
      await assert.rejects(
        () => resetPassword(server.cairn.domain, server.cairn.auth, tenant.owner.email, 'password1'),
        /password/i,
      );
      assert.equal(
        (await signIn(tenant.owner.email, 'correct horse battery')).status,
        200,
        'the old password still works',
      );
      await assert.rejects(
        () => resetPassword(server.cairn.domain, server.cairn.auth, 'nobody@example.test', NEW),
        /No user with the email nobody@example.test/,
      );
    });
  });
});

function cli(env: Record<string, string>, args: string[], stdin: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [...cairnCommand(), ...args], {
      env: { ...inherited, CAIRN_LOG_LEVEL: 'warn', ...env },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
    child.stdin.end(stdin);
  });
}

forEachBackend(({ name: backend, skip, postgresServerUrl }) => {
  describe(`cairn users reset-password (${backend})`, { skip }, () => {
    let env: Record<string, string>;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ env, remove: cleanup } = await emptyStorage(postgresServerUrl, 'cairn-reset-'));
    });
    after(() => cleanup?.());

    test('takes the new password from stdin only and reports the sessions it ended', async () => {
      assert.equal(
        (
          await cli(
            env,
            ['users', 'create', '--email', 'ops@example.test', '--org', 'Ops', '--password-stdin'],
            'violet kettle orbit seven\n',
          )
        ).code,
        0,
      );
      const noStdin = await cli(env, ['users', 'reset-password', '--email', 'ops@example.test'], '');
      assert.equal(noStdin.code, 1);
      assert.match(noStdin.stderr, /--password-stdin/);
      const done = await cli(
        env,
        ['users', 'reset-password', '--email', 'ops@example.test', '--password-stdin'],
        `${NEW}\n`,
      );
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stderr, /Password of ops@example\.test replaced; every session of theirs has ended/);
      assert.ok(!done.stderr.includes(NEW), 'the password is never printed');
      const unknown = await cli(
        env,
        ['users', 'reset-password', '--email', 'who@example.test', '--password-stdin'],
        `${NEW}\n`,
      );
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /No user with the email who@example\.test/);
    });
  });
});

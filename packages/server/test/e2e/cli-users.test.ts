import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { cairnCommand } from '../../src/testing/cairn-process.js';
import { emptyStorage } from '../../src/testing/run-cli.js';

const GOOD = 'violet kettle orbit seven';

/** Runs the real `cairn` command (TypeScript through tsx), the password on stdin. */
function cairn(
  env: Record<string, string>,
  args: string[],
  password = GOOD,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [...cairnCommand(), ...args], {
      env: { ...inherited, CAIRN_LOG_LEVEL: 'warn', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(`${password}\n`);
  });
}

forEachBackend(({ name: backend, skip, postgresServerUrl }) => {
  describe(`cairn users create never joins an organization silently (${backend})`, { skip }, () => {
    let env: Record<string, string>;
    let cleanup: () => Promise<void>;
    const users = (email: string, ...rest: string[]) =>
      cairn(env, ['users', 'create', '--email', email, '--password-stdin', ...rest]);

    before(async () => {
      ({ env, remove: cleanup } = await emptyStorage(postgresServerUrl, 'cairn-cli-'));
    });
    after(() => cleanup?.());

    test('the first user creates the named organization and owns it', async () => {
      const first = await users('eve@example.test', '--org', 'Finance');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^\S+\n$/, 'prints the new user id');
      assert.match(first.stderr, /owner of "Finance", a new organization/);
    });

    test('naming an existing organization without --join is an error that says whose it is and shows the flag', async () => {
      const answer = await users('f@example.test', '--org', 'finance');
      assert.equal(answer.code, 1);
      assert.match(answer.stderr, /An organization named "Finance" exists already \(owners: eve@example\.test\)/);
      assert.match(answer.stderr, /--join/);
      assert.equal(answer.stdout, '');
      const again = await users('f@example.test');
      assert.equal(again.code, 1, 'without --org, an existing organization is not picked either');
      assert.match(again.stderr, /"Finance" \(owners: eve@example\.test\).*--org NAME --join/);
    });

    test('--join adds the user as a member and says whose organization it is', async () => {
      const joined = await users('f@example.test', '--org', 'Finance', '--join');
      assert.equal(joined.code, 0, joined.stderr);
      assert.match(joined.stderr, /Created f@example\.test \(member of "Finance", owners: eve@example\.test\)/);
    });

    test('--join with a name that does not exist, or without --org, creates nothing', async () => {
      const typo = await users('g@example.test', '--org', 'Finanse', '--join');
      assert.equal(typo.code, 1);
      assert.match(typo.stderr, /no organization named "Finanse" to join/);
      const bare = await users('g@example.test', '--join');
      assert.equal(bare.code, 1);
      assert.match(bare.stderr, /--org NAME --join/);
      const created = await users('g@example.test', '--org', 'Other');
      assert.equal(created.code, 0, 'g was not half-made by the refused attempts');
    });

    test('the CLI applies the password policy', async () => {
      const weak = await cairn(
        env,
        ['users', 'create', '--email', 'h@example.test', '--org', 'Third', '--password-stdin'],
        'password123456',
      );
      assert.equal(weak.code, 1);
      assert.match(weak.stderr, /at least 10 characters that are not a common password/);
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { countRows } from '../../src/testing/count-rows.js';
import { signIn } from '../../src/testing/oauth-flow.js';
import { rawRequest } from '../../src/testing/raw-request.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const GOOD = 'violet kettle orbit seven';
const ADVICE = /at least 10 characters that are not a common password, e\.g\. a few unrelated words/;

forEachBackend(({ name: backend, skip, options }) => {
  describe(`nobody gets in uninvited (${backend})`, { skip }, () => {
    let server: TestCairn;
    let cookie: string;
    let orgId: string;
    const start = () => startTestCairn(options);

    before(async () => {
      server = await start();
    });
    after(() => server?.close());

    const signup = async (body: Record<string, unknown>) => {
      const answer = await fetch(`${server.baseUrl}/api/v1/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.baseUrl },
        body: JSON.stringify(body),
      });
      return { status: answer.status, text: await answer.text() };
    };
    const users = () => countRows(server.cairn.store.db, 'user');
    const invite = async (role = 'member') => {
      const answer = await fetch(`${server.baseUrl}/api/v1/organizations/${orgId}/invitations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.baseUrl, cookie },
        body: JSON.stringify({ role }),
      });
      assert.equal(answer.status, 201);
      return new URL(((await answer.json()) as { inviteUrl: string }).inviteUrl).searchParams.get('invite')!;
    };

    test('the first sign-up follows the password policy too, then owns the organization', async () => {
      const weak = await signup({ email: 'ada@example.test', password: 'password', organization: 'Analytical' });
      assert.equal(weak.status, 400);
      assert.match(weak.text, ADVICE);
      assert.equal(await users(), 0, 'nothing half-made');
      const first = await signup({
        email: 'ada@example.test',
        name: 'Ada',
        password: GOOD,
        organization: 'Analytical',
      });
      assert.equal(first.status, 201, first.text);
      orgId = (JSON.parse(first.text) as { organization: { id: string; role: string } }).organization.id;
      cookie = await signIn(server.baseUrl, 'ada@example.test', GOOD);
    });

    test('with a user, /api/v1/signup creates nobody without a valid invitation', async () => {
      const without = await signup({ email: 'eve@evil.example', password: GOOD, organization: 'Finance' });
      assert.equal(without.status, 403);
      assert.match(without.text, /join by invitation/);
      const bogus = await signup({ email: 'eve@evil.example', password: GOOD, invite: 'not-a-real-invite-token' });
      assert.equal(bogus.status, 400);
      assert.match(bogus.text, /invite link is not valid/);
      assert.equal(await users(), 1);
      assert.equal((await server.cairn.store.listOrganizations()).length, 1, 'and no organization either');
    });

    test('a bad invite gets one answer whatever the email (no account enumeration)', async () => {
      const existing = await signup({ email: 'ada@example.test', password: GOOD, invite: 'bogus-invite-0001' });
      const fresh = await signup({ email: 'nobody-here@example.test', password: GOOD, invite: 'bogus-invite-0001' });
      assert.deepEqual(existing, fresh);
      assert.equal(existing.status, 400);
      assert.doesNotMatch(existing.text, /already exists|ada@example/);
    });

    test('weak passwords are refused with advice, and the invitation stays usable', async () => {
      const token = await invite();
      for (const password of [
        'password',
        '12345678',
        'password123456',
        'k3J9xq2Lm',
        'qwertyuiop',
        'bob@example.test1',
      ]) {
        const answer = await signup({ email: 'bob@example.test', password, invite: token });
        assert.equal(answer.status, 400, `${password}: ${answer.text}`);
        assert.match(answer.text, ADVICE, password);
      }
      assert.equal(await server.cairn.store.findUserByEmail('bob@example.test'), undefined);
      const joined = await signup({ email: 'bob@example.test', name: 'Bob', password: GOOD, invite: token });
      assert.equal(joined.status, 201, joined.text);
      assert.equal(JSON.parse(joined.text).organization.id, orgId);
    });

    test("an invite link's page learns whose invitation it is, without signing in; a used or unknown one is not valid", async () => {
      const summary = async (token: string) =>
        (await (await fetch(`${server.baseUrl}/api/v1/invites/${encodeURIComponent(token)}`)).json()) as Record<
          string,
          unknown
        >;
      const token = await invite('admin');
      assert.deepEqual(await summary(token), {
        valid: true,
        organization: 'Analytical',
        invitedBy: 'Ada',
        role: 'admin',
      });
      assert.deepEqual(await summary('not-a-real-invite-token'), { valid: false });
      assert.deepEqual(await summary('x'.repeat(300)), { valid: false });
      const joined = await signup({ email: 'carol@example.test', name: 'Carol', password: GOOD, invite: token });
      assert.equal(joined.status, 201, joined.text);
      assert.deepEqual(await summary(token), { valid: false }, 'once used, it says no more');
    });

    test('invite URLs come from CAIRN_BASE_URL, never from the Host header', async () => {
      for (const headers of [
        { host: 'evil.example' },
        { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      ] as Record<string, string>[]) {
        const answer = await rawRequest(server.baseUrl, `/api/v1/organizations/${orgId}/invitations`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', origin: server.baseUrl, cookie },
          body: '{"role":"member"}',
        });
        assert.equal(answer.status, 201, answer.body);
        const { inviteUrl } = JSON.parse(answer.body) as { inviteUrl: string };
        assert.ok(inviteUrl.startsWith(`${server.baseUrl}/signup?invite=`), inviteUrl);
        assert.doesNotMatch(inviteUrl, /evil/);
      }
    });

    test('racing first sign-ups on a fresh Cairn: at most one gets in', async () => {
      const fresh = await start();
      try {
        const answers = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            fetch(`${fresh.baseUrl}/api/v1/signup`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', origin: fresh.baseUrl },
              body: JSON.stringify({ email: `racer${i}@example.test`, password: GOOD, organization: `Race ${i}` }),
            }),
          ),
        );
        const created = answers.filter((a) => a.status === 201).length;
        assert.ok(created <= 1, `${created} first users`);
        assert.equal(await fresh.cairn.store.countUsers(), created);
        assert.equal((await fresh.cairn.store.listOrganizations()).length, created);
      } finally {
        await fresh.close();
      }
    });
  });
});

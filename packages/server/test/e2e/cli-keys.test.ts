import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { runCli } from '../../src/testing/run-cli.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const DAY_MS = 24 * 60 * 60 * 1000;

forEachBackend(({ name: backend, skip, options }) => {
  describe(`cairn keys create/list with --scope and --expires (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;

    const cairn = (...args: string[]) => runCli(server, ...args);
    const keyCount = async () => (await server.cairn.store.listApiKeys(tenant.member.id)).length;

    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
    });
    after(() => server?.close());

    test('--scope read --expires 90d makes a read-only key that expires in 90 days; keys list shows both', async () => {
      const made = await cairn(
        'keys',
        'create',
        '--user',
        tenant.member.email,
        '--name',
        'ci reader',
        '--scope',
        'read',
        '--expires',
        '90d',
      );
      assert.equal(made.code, 0, made.stderr);
      const key = made.stdout.trim();
      assert.match(key, /^cairn_tkn_[0-9A-Za-z]{36}$/, 'stdout is the key and only the key');
      assert.match(made.stderr, /Created read key .*expires \d{4}-/);
      const stored = (await server.cairn.store.listApiKeys(tenant.member.id)).find((k) => k.name === 'ci reader')!;
      assert.equal(stored.scope, 'read');
      assert.equal(Date.parse(stored.expiresAt!) - Date.parse(stored.createdAt), 90 * DAY_MS);

      const dated = await cairn(
        'keys',
        'create',
        '--user',
        tenant.member.email,
        '--name',
        'dated',
        '--expires',
        '2030-06-30',
      );
      assert.equal(dated.code, 0, dated.stderr);
      const forever = await cairn(
        'keys',
        'create',
        '--user',
        tenant.member.email,
        '--name',
        'forever',
        '--expires',
        'never',
      );
      assert.equal(forever.code, 0, forever.stderr);

      const listed = await cairn('keys', 'list', '--user', tenant.member.email);
      assert.equal(listed.code, 0, listed.stderr);
      const line = (name: string) => listed.stdout.split('\n').find((l) => l.split('\t')[1] === name) ?? '';
      assert.match(line('ci reader'), new RegExp(`\\tread\\t.*\\texpires ${stored.expiresAt}\\t.*\\tactive$`));
      assert.match(line('dated'), /\tread-write\t.*\texpires 2030-06-30T23:59:59\.999Z\t.*\tactive$/);
      assert.match(line('forever'), /\tread-write\t.*\tno expiry\t.*\tactive$/);
      assert.match(
        line('member key'),
        /\tread-write\t.*\tno expiry\t/,
        'keys made without flags are read-write and never expire',
      );
      assert.ok(!listed.stdout.includes(key.slice(10)), 'the list never shows a key');
    });

    test('keys list marks an expired key as expired', async () => {
      const { record } = await (await import('../../src/domain/api-keys.js')).createApiKey(
        server.cairn.domain,
        tenant.member.id,
        'short-lived',
        { expiresInDays: 1 },
      );
      await server.cairn.store.db
        .updateTable('api_key')
        .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
        .where('id', '=', record.id)
        .execute();
      const listed = await cairn('keys', 'list', '--user', tenant.member.email);
      assert.match(listed.stdout.split('\n').find((l) => l.startsWith(record.id)) ?? '', /\texpired \d{4}-.*Z$/);
    });

    test('bad --scope or --expires values are refused with a clear message, and no key is made', async () => {
      const before = await keyCount();
      const cases: [string[], RegExp][] = [
        [['--scope', 'admin'], /--scope must be "read" .* or "read-write"/],
        [['--scope', ''], /--scope must be "read"/],
        [
          ['--expires', '90'],
          /--expires must be a number of days such as 30d or 90d, a date such as 2027-01-31, or "never" \(got "90"\)/,
        ],
        [['--expires', 'tomorrow'], /--expires must be/],
        [['--expires', '0d'], /whole number of days from 1 to 3650/],
        [['--expires', '4000d'], /whole number of days from 1 to 3650/],
        [['--expires', '2020-01-01'], /not in the future/],
        [['--expires', '2030-02-30'], /date such as 2027-01-31/],
      ];
      for (const [flags, message] of cases) {
        const answer = await cairn('keys', 'create', '--user', tenant.member.email, '--name', 'bad', ...flags);
        assert.equal(answer.code, 1, flags.join(' '));
        assert.match(answer.stderr, message, flags.join(' '));
        assert.equal(answer.stdout, '', 'nothing that looks like a key');
      }
      assert.equal(await keyCount(), before, 'no key was made');
    });
  });
});

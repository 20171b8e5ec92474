// Two Cairns on one PostgreSQL database share one set of brute-force counters. (The limits of one
// Cairn, on each backend, are in rate-limits.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, postgresTestUrl } from '../../src/testing/postgres.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';
import { assertTooMany, PASSWORD, register, signInAttempt } from './rate-limits.fixture.js';

const pg = postgresTestUrl();
if ('skip' in pg) console.log(`# Rate limits shared by two instances skipped: ${pg.skip}`);

describe('two instances on one PostgreSQL database share the brute-force limits', {
  skip: 'skip' in pg ? pg.skip : undefined,
}, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestCairn;
  let b: TestCairn;
  let tenant: TestTenant;
  before(async () => {
    database = await createTestDatabase((pg as { url: string }).url);
    const env = { CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS: '3', CAIRN_OAUTH_REGISTRATIONS_PER_ADDRESS: '2' };
    // Started together on an empty database: both race to create the limits' table.
    [a, b] = await Promise.all([
      startTestCairn({ databaseUrl: database.url, env }),
      startTestCairn({ databaseUrl: database.url, env }),
    ]);
    tenant = await createTenant(a.cairn);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  test('failures on A block sign-in on B, with the right password too; registrations count across both', async () => {
    for (let i = 0; i < 3; i++)
      assert.equal((await signInAttempt(a.baseUrl, tenant.member.email, `wrong ${i}`)).status, 401);
    await assertTooMany(
      await signInAttempt(b.baseUrl, tenant.member.email, PASSWORD),
      /this account from your network/,
    );
    assert.equal((await register(a.baseUrl)).status, 201);
    assert.equal((await register(b.baseUrl)).status, 201);
    assert.equal((await register(a.baseUrl)).status, 429);
    assert.equal((await register(b.baseUrl)).status, 429);
  });
});

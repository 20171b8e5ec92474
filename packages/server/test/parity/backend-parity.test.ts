// Every test file that starts a Cairn or opens a store runs on SQLite and on PostgreSQL, as it declares
// (src/testing/backends.ts), unless it is listed below with the reason it tests one backend's own behaviour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { oneBackendSuites, repositoryTests } from './backend-parity.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The files that test one backend on purpose, and why. A file that no longer needs its line fails the test. */
const ONE_BACKEND: Record<string, string> = {
  'packages/server/src/store/prepared-query.test.ts':
    "its last test is PostgreSQL's named statements, which SQLite does not have (the others run on each backend)",
  'packages/server/src/testing/postgres-template.test.ts':
    "copies of PostgreSQL's migrated template database; a SQLite Cairn starts on an empty file",
  'packages/server/src/store/sqlite/lock-aware-driver.test.ts': "SQLite's write lock and the driver that waits for it",
  'packages/server/src/store/sqlite/sqlite-search-upgrade.test.ts':
    "the upgrade of SQLite's full-text index, which PostgreSQL does not have",
  'packages/server/test/e2e/database-busy.test.ts':
    "PostgreSQL's pool with every connection held (SQLite's lock is sqlite-lock.test.ts)",
  'packages/server/test/e2e/database-outage.test.ts':
    "PostgreSQL's server killed and restarted under load; SQLite has no server",
  'packages/server/test/e2e/export-round-trip.test.ts':
    'an export moved from SQLite to PostgreSQL and back: both backends in one test',
  'packages/server/test/e2e/multi-instance.test.ts':
    'many instances on one PostgreSQL database; a SQLite file belongs to one process',
  'packages/server/test/e2e/rate-limits-two-instances.test.ts':
    'two instances sharing one PostgreSQL database (one instance runs on each backend in rate-limits.test.ts)',
  'packages/server/test/e2e/sqlite-lock.test.ts':
    "another process holding the SQLite file's write lock (PostgreSQL's busy pool is database-busy.test.ts)",
};

test('every suite that opens storage runs on each backend, or is listed with its reason', () => {
  const { tests, helpers } = repositoryTests(ROOT);
  const found = oneBackendSuites(ROOT, tests, helpers);
  const unlisted = found.filter((s) => !(s.file in ONE_BACKEND));
  assert.deepEqual(
    unlisted.map((s) => `${s.file}:${s.line} calls ${s.call}`),
    [],
    'These run on one backend only. Wrap their suites in forEachBackend, or call runFileOnEachBackend() at the top of a file whose Cairn is set up at the top level (src/testing/backends.ts); if the file tests one backend on purpose, list it in ONE_BACKEND with the reason.',
  );
  const stale = Object.keys(ONE_BACKEND).filter((file) => !found.some((s) => s.file === file));
  assert.deepEqual(
    stale,
    [],
    'These are listed in ONE_BACKEND but now run on each backend (or are gone): remove their lines.',
  );
});

test('the check names a made-up suite that starts a Cairn through a new helper on one backend, and one that starts a Cairn outside its forEachBackend', () => {
  const { helpers } = repositoryTests(ROOT);
  const fixtures = ['one-backend-suite', 'outside-the-loop', 'declared-suite'].map(
    (f) => `packages/server/test/parity/${f}.fixture.ts`,
  );
  assert.deepEqual(oneBackendSuites(ROOT, fixtures, helpers), [
    { file: 'packages/server/test/parity/one-backend-suite.fixture.ts', line: 10, call: 'startShinyCairn' },
    { file: 'packages/server/test/parity/outside-the-loop.fixture.ts', line: 19, call: 'startTestCairn' },
  ]);
});

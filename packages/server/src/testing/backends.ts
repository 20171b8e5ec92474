import { appendFileSync } from 'node:fs';
import { test } from 'node:test';
import { postgresTestUrl } from './postgres.js';
import type { TestCairnOptions } from './test-cairn.js';

/** The storage backends every storage-touching suite runs on. */
export const BACKENDS = ['sqlite', 'postgres'] as const;

/** One of BACKENDS. */
export type BackendName = (typeof BACKENDS)[number];

/** A backend as a suite sees it: its name, why its cases are skipped here (if they are), how to start a Cairn on it. */
export interface TestBackend {
  name: BackendName;
  /** Set when this backend cannot be tested here: pass it to the suite's `skip`, so the reason is printed. */
  skip: string | undefined;
  /** The PostgreSQL server to make databases on; undefined for SQLite (and for a skipped PostgreSQL). */
  postgresServerUrl: string | undefined;
  /** What startTestCairn needs to put a Cairn on this backend. */
  options: TestCairnOptions;
}

/**
 * Runs `suite` once per backend in this process, each time with that backend (a suite names it in its
 * titles and starts its Cairn with `backend.options`). CAIRN_TEST_BACKEND narrows the run to one.
 * For files whose Cairn is set up at the top level rather than in a suite, see runFileOnEachBackend.
 */
export function forEachBackend(suite: (backend: TestBackend) => void): void {
  const only = chosenBackend();
  for (const name of BACKENDS) if (only === undefined || only === name) suite(testBackend(name));
}

/**
 * Declares that this file's top-level set-up starts a Cairn on the runner's backend (startTestCairn
 * without a backend follows CAIRN_TEST_BACKEND), so scripts/run-tests.mjs runs the file once per
 * backend: it records the file for its PostgreSQL pass. Outside that pass PostgreSQL is not run here,
 * and a skipped test says why. Called once, at the top level of the file (or of a helper it calls there).
 */
export function runFileOnEachBackend(): TestBackend {
  const backend = chosenBackend() ?? 'sqlite';
  if (backend === 'sqlite' && !declared) {
    declared = true;
    const passes = process.env.CAIRN_TEST_PARITY_FILE;
    const why = postgresTestUrl();
    if (passes && 'url' in why) appendFileSync(passes, `${process.argv[1]}\n`);
    else
      test('the same tests on PostgreSQL', {
        skip:
          'skip' in why
            ? why.skip
            : 'this file runs on PostgreSQL in the PostgreSQL pass of the test runner: run it with npm test -- <file> (scripts/run-tests.mjs)',
      });
  }
  return testBackend(backend);
}

let declared = false;

function chosenBackend(): BackendName | undefined {
  const named = process.env.CAIRN_TEST_BACKEND;
  if (named === undefined || named === '') return undefined;
  if (!(BACKENDS as readonly string[]).includes(named))
    throw new Error(
      `CAIRN_TEST_BACKEND is ${JSON.stringify(named)}: set it to sqlite or postgres, or unset it to run both`,
    );
  return named as BackendName;
}

function testBackend(name: BackendName): TestBackend {
  if (name === 'sqlite') return { name, skip: undefined, postgresServerUrl: undefined, options: {} };
  const target = postgresTestUrl();
  if ('skip' in target) return { name, skip: target.skip, postgresServerUrl: undefined, options: {} };
  return { name, skip: undefined, postgresServerUrl: target.url, options: { postgresServerUrl: target.url } };
}

// scripts/run-tests.mjs, run as `npm test` runs it, over fixture test files in a scratch package: a
// failure, a timeout or a cancellation fails the run and is named, with its file, in the last lines;
// and scripts/test-workspaces.mjs, which repeats each workspace's failures after the last workspace.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
// Long enough for a fixture file to start under tsx on a loaded machine, short enough to wait for.
const TIMEOUT_MS = 15_000;
const scratch: string[] = [];
after(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A package holding these files under src/, resolving tsx from the checkout as a workspace does. */
function fixturePackage(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-run-tests-'));
  scratch.push(dir);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture-package', private: true, type: 'module' }));
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'src', name), text);
  return dir;
}

function runTests(
  cwd: string,
  env: Record<string, string> = {},
  script = 'scripts/run-tests.mjs',
): Promise<{ code: number | null; lines: string[]; output: string }> {
  // NODE_TEST_CONTEXT, set by the runner running this file, would make the fixtures' runner run nothing, and
  // CAIRN_TEST_SUMMARY_FILE (test-workspaces.mjs) would put their failures in this workspace's summary, and
  // CAIRN_TEST_DATABASE_URL (CI sets it) would give every fixture run a PostgreSQL pass: a test that wants one names it.
  const {
    CAIRN_TEST_STRICT,
    CAIRN_TEST_BACKEND,
    CAIRN_TEST_TIMEOUT_MS,
    CAIRN_TEST_SUMMARY_FILE,
    CAIRN_TEST_DATABASE_URL,
    NODE_TEST_CONTEXT,
    ...inherited
  } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repo, script)], {
      cwd,
      env: { ...inherited, CAIRN_TEST_TIMEOUT_MS: String(TIMEOUT_MS), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines: output.trimEnd().split('\n'), output }));
  });
}

const PASSING = `import { test } from 'node:test';
test('adds', () => {});
`;

// The three runs at once: most of their time is the fixtures waiting for their limit or for tsx.
describe('scripts/run-tests.mjs', { concurrency: true }, () => {
  test('a failed, a timed-out and a cancelled test and a file that throws fail the run, and the closing lines name each with its file', async () => {
    const dir = fixturePackage({
      'fine.test.ts': PASSING,
      'mixed.test.ts': `import assert from 'node:assert/strict';
  import { describe, test } from 'node:test';
  describe('sums', () => {
    test('adds', () => assert.equal(1 + 2, 4, 'one and two make four'));
    test('subtracts', () => assert.equal(2 - 1, 1));
  });
  test('parent', (t) => {
    t.test('child never awaited', () => new Promise(() => {}));
  });
  `,
      'broken.test.ts': `import { test } from 'node:test';
test('never reached', () => {});
throw new Error('the fixture data is missing: set FIXTURE_DATA');
`,
      'stuck.test.ts': `import { describe, test } from 'node:test';
  describe('waits', () => {
    test('for ever', () => new Promise((resolve) => setTimeout(resolve, 600_000)));
  });
  `,
    });
    const { code, lines, output } = await runTests(dir);
    assert.equal(code, 1, output);
    const start = lines.findIndex((l) => l.startsWith('FAILED:'));
    assert.ok(start > 0, `a closing FAILED line:\n${output}`);
    const closing = lines.slice(start);
    assert.match(closing[0]!, /^FAILED: 4 tests in 3 files \(/);
    for (const count of ['2 failed', '1 timed out', '1 cancelled'])
      assert.ok(closing[0]!.includes(count), `${count} in ${closing[0]}`);
    assert.equal(closing[1], 'in the sqlite (and the files that pick their backends) pass:');
    // Node 20 ends a file whose import throws with exit code 7; which code is not the point.
    const named = closing
      .slice(2, 6)
      .map((l) => l.replace(/exited with code \d+/, 'exited with code N'))
      .sort();
    assert.deepEqual(named.slice(0, 3), [
      '  CANCELLED  src/mixed.test.ts  "parent > child never awaited": test did not finish before its parent and was cancelled',
      '  FAILED     src/broken.test.ts  the whole file (exited with code N: Error: the fixture data is missing: set FIXTURE_DATA)',
      '  FAILED     src/mixed.test.ts  "sums > adds": one and two make four',
    ]);
    // Stopped with its file (the file's limit) or on its own (the test's): either way the test is named.
    assert.match(
      named[3]!,
      /^ {2}TIMED OUT {2}src\/stuck\.test\.ts {2}(the whole file \(test timed out after 15000ms\), while running "waits > for ever"|"waits > for ever": test timed out after 15000ms)$/,
    );
    assert.match(
      closing[6]!,
      /^Run one file again: npm test -w fixture-package -- src\/(broken|mixed|stuck)\.test\.ts$/,
    );
    assert.equal(closing.length, 7, `nothing after the summary:\n${closing.join('\n')}`);
    assert.ok(!closing.join('\n').includes('fine.test.ts'), 'a passing file is not listed');
    assert.match(output, /^# sqlite \(and the files that pick their backends\) pass: 4 files in [\d.]+ s; slowest:$/m);
  });

  test('a run where every test passes ends with its timing and exits 0; CAIRN_TEST_STRICT fails it when a test was skipped', async () => {
    const dir = fixturePackage({
      'fine.test.ts': PASSING,
      'skips.test.ts': `import { test } from 'node:test';
  test('runs', () => {});
  test.skip('needs what is missing', () => {});
  `,
    });
    const passing = await runTests(dir);
    assert.equal(passing.code, 0, passing.output);
    assert.ok(!passing.output.includes('FAILED'), passing.output);
    assert.match(
      passing.lines.at(-3)!,
      /^# sqlite \(and the files that pick their backends\) pass: 2 files in [\d.]+ s; slowest:$/,
    );
    assert.deepEqual(
      passing.lines
        .slice(-2)
        .map((l) => l.replace(/^# +[\d.]+ s {2}/, '# N s  '))
        .sort(),
      ['# N s  src/fine.test.ts', '# N s  src/skips.test.ts'],
    );
    const strict = await runTests(dir, {
      CAIRN_TEST_STRICT: '1',
      CAIRN_TEST_DATABASE_URL: 'postgres://unused.invalid/none',
    });
    assert.equal(strict.code, 1, strict.output);
    assert.match(strict.lines.at(-1)!, /^# STRICT: 1 skipped and 0 todo test\(s\) in .*cairn-run-tests-/);
  });

  test('a file that calls runFileOnEachBackend runs again on PostgreSQL, and only such a file; without a database its PostgreSQL run is a skip that says why', async () => {
    const backends = join(repo, 'packages/server/src/testing/backends.ts');
    const says = `test('says its backend', () => console.log(\`ran on \${process.env.CAIRN_TEST_BACKEND ?? 'sqlite'}\`));\n`;
    const dir = fixturePackage({
      'declared.test.ts': `import { test } from 'node:test';\nimport { runFileOnEachBackend } from ${JSON.stringify(backends)};\nrunFileOnEachBackend();\n${says}`,
      'undeclared.test.ts': `import { test } from 'node:test';\n${says}`,
    });
    // The fixtures never connect: the URL only tells the runner a PostgreSQL pass is wanted.
    const both = await runTests(dir, { CAIRN_TEST_DATABASE_URL: 'postgres://unused.invalid/none' });
    assert.equal(both.code, 0, both.output);
    assert.match(both.output, /^# backend pass: postgres \(1 file\)$/m);
    assert.equal(both.output.match(/ran on postgres/g)?.length, 1, both.output);
    assert.equal(both.output.match(/ran on sqlite/g)?.length, 2, both.output);
    assert.match(
      both.output,
      /^# postgres pass: 1 file in [\d.]+ s; slowest:\n# +[\d.]+ s {2}src\/declared\.test\.ts$/m,
    );
    const alone = await runTests(dir);
    assert.equal(alone.code, 0, alone.output);
    assert.doesNotMatch(alone.output, /backend pass: postgres/);
    assert.match(alone.output, /the same tests on PostgreSQL # SKIP CAIRN_TEST_DATABASE_URL is not set/);
  });

  test('a CAIRN_TEST_TIMEOUT_MS that is no number of milliseconds is refused, saying what to set', async () => {
    const { code, lines } = await runTests(fixturePackage({ 'fine.test.ts': PASSING }), {
      CAIRN_TEST_TIMEOUT_MS: '2m',
    });
    assert.equal(code, 1);
    assert.equal(
      lines.at(-1),
      'CAIRN_TEST_TIMEOUT_MS is "2m": set it to a whole number of milliseconds (300000 by default), or unset it.',
    );
  });

  test('after every workspace has run, the last lines repeat what failed in each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-run-tests-'));
    scratch.push(dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'fixture-root', private: true, workspaces: ['packages/*'] }),
    );
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
    const files = {
      failing: {
        'sum.test.ts': `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\ntest('adds', () => assert.equal(1 + 2, 4, 'one and two make four'));\n`,
      },
      passing: { 'fine.test.ts': PASSING },
    };
    for (const [name, tests] of Object.entries(files)) {
      mkdirSync(join(dir, 'packages', name, 'src'), { recursive: true });
      writeFileSync(
        join(dir, 'packages', name, 'package.json'),
        JSON.stringify({
          name: `fixture-${name}`,
          private: true,
          type: 'module',
          scripts: { test: `node ${join(repo, 'scripts/run-tests.mjs')}` },
        }),
      );
      for (const [file, text] of Object.entries(tests)) writeFileSync(join(dir, 'packages', name, 'src', file), text);
    }
    const { code, lines, output } = await runTests(dir, {}, 'scripts/test-workspaces.mjs');
    assert.equal(code, 1, output);
    const closing = lines.slice(lines.findIndex((l) => l.startsWith('# npm test: 2 workspaces in ')));
    assert.deepEqual(
      closing.map((l) => l.replace(/[\d.]+ s$/, 'N s')),
      [
        closing[0],
        '#   FAILED  fixture-failing  N s',
        '#   ok      fixture-passing  N s',
        '',
        'fixture-failing:',
        'FAILED: 1 test in 1 file (1 failed):',
        'in the sqlite (and the files that pick their backends) pass:',
        '  FAILED  src/sum.test.ts  "adds": one and two make four',
        'Run one file again: npm test -w fixture-failing -- src/sum.test.ts',
        '',
        'FAILED: fixture-failing.',
      ],
      output,
    );
    assert.ok(
      output.indexOf('# fixture-passing: ') > output.indexOf('# fixture-failing: '),
      'the passing workspace ran after the failing one',
    );
  });
});

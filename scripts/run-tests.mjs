// Runs every *.test.ts under the package's src/ and test/ with node's test runner (TypeScript through tsx).
// Node 20's --test takes no globs, hence the walk. Extra arguments narrow the run to matching paths.
// Suites that open storage run once per backend, as they declare (see parityFile below).
// With CAIRN_TEST_STRICT set (CI sets it), a run that skipped any test fails: nothing goes green by skipping.
// The last lines printed name every test that failed, timed out or was cancelled, with its file
// (test-summary.mjs), and the slowest files. CAIRN_TEST_TIMEOUT_MS sets the limit of each file and each
// test: 300000 by default, five times the 60 s a file may take on a 2-core machine at load 2: the CLI's
// e2e files start the cairn command dozens of times on both backends, and one took over 180 s (the
// limit before) in a CI run at load 4-5. A stuck file is stopped after five minutes.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { problemLines, seconds, summarize } from './test-summary.mjs';

// npm runs a workspace's scripts in that workspace's folder.
const root = process.cwd();
const filters = process.argv.slice(2);
const strict = ['1', 'true', 'yes'].includes((process.env.CAIRN_TEST_STRICT ?? '').toLowerCase());
const timeout = process.env.CAIRN_TEST_TIMEOUT_MS ?? '300000';
if (!/^[1-9]\d*$/.test(timeout)) {
  say(
    `CAIRN_TEST_TIMEOUT_MS is ${JSON.stringify(timeout)}: set it to a whole number of milliseconds (300000 by default), or unset it.`,
    console.error,
  );
  process.exit(1);
}
const workspace = existsSync(join(root, 'package.json'))
  ? JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name
  : undefined;
const reporter = fileURLToPath(new URL('test-outcomes-reporter.mjs', import.meta.url));

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.name.endsWith('.test.ts')) yield relative(root, path);
  }
}

const files = ['src', 'test']
  .filter((dir) => existsSync(join(root, dir)))
  .flatMap((dir) => [...walk(join(root, dir))])
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  say(`No test files match ${filters.join(' ')}`, console.error);
  process.exit(1);
}
if (!process.env.CAIRN_TEST_DATABASE_URL) {
  const what = 'CAIRN_TEST_DATABASE_URL is not set; PostgreSQL-backed tests will be skipped (each says why)';
  if (strict) console.error(`# STRICT: ${what}, so this run will fail.`);
  else console.log(`# Note: ${what}.`);
}

// Every storage suite runs once per backend, as it declares (packages/server/src/testing/backends.ts):
// files that call forEachBackend run both in this first pass; files that call runFileOnEachBackend
// record themselves in `parityFile` while they run, and run a second time, on PostgreSQL.
const parityDir = mkdtempSync(join(tmpdir(), 'cairn-test-parity-'));
const parityFile = join(parityDir, 'files');
const declaredPostgresPass = () =>
  existsSync(parityFile)
    ? [
        ...new Set(
          readFileSync(parityFile, 'utf8')
            .split('\n')
            .filter((l) => l !== ''),
        ),
      ]
        .map((f) => relative(root, f))
        .sort()
    : [];

/** Prints a closing line, and keeps it for scripts/test-workspaces.mjs to repeat after the last workspace. */
function say(line, stream = console.log) {
  stream(line);
  if (process.env.CAIRN_TEST_SUMMARY_FILE) appendFileSync(process.env.CAIRN_TEST_SUMMARY_FILE, `${line}\n`);
}

const started = Date.now();
const first = await runPass(
  files,
  process.env.CAIRN_TEST_DATABASE_URL ? { CAIRN_TEST_PARITY_FILE: parityFile } : {},
  'sqlite (and the files that pick their backends)',
);
const postgresPass = declaredPostgresPass();
rmSync(parityDir, { recursive: true, force: true });
const second =
  first.code === 0 && postgresPass.length > 0
    ? await runPass(postgresPass, { CAIRN_TEST_BACKEND: 'postgres' }, 'postgres')
    : undefined;
const passes = [first, second].filter((p) => p !== undefined);
const code = passes.some((p) => p.code !== 0 || p.problems.length > 0) ? 1 : 0;
closingSummary();
if (code === 0 && strict) {
  const skipped = first.skipped + (second?.skipped ?? 0);
  const todo = first.todo + (second?.todo ?? 0);
  if (skipped > 0 || todo > 0) {
    say(
      `\n# STRICT: ${skipped} skipped and ${todo} todo test(s) in ${root}. CI does not pass by skipping: install what they need (see .ci/run) or remove the skip.`,
      console.error,
    );
    process.exit(1);
  }
}
process.exit(code);

/** One run of node's test runner over `list`: its exit code, what went wrong, its skips and todos and each file's duration. */
function runPass(list, env, name) {
  console.log(`# backend pass: ${name} (${list.length} file${list.length === 1 ? '' : 's'})`);
  const dir = mkdtempSync(join(tmpdir(), 'cairn-test-outcomes-'));
  const outcomes = join(dir, 'outcomes.jsonl');
  // Node picks spec on a terminal and TAP elsewhere unless told; naming a second reporter means naming both.
  const shown = process.stdout.isTTY ? 'spec' : 'tap';
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    `--test-timeout=${timeout}`,
    `--test-reporter=${shown}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${outcomes}`,
  ];
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...args, ...list], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: 'inherit',
    });
    child.on('close', (exit, signal) => {
      const records = existsSync(outcomes)
        ? readFileSync(outcomes, 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l))
        : [];
      rmSync(dir, { recursive: true, force: true });
      const summary = summarize(records, root);
      let code = exit ?? (signal ? 1 : 0);
      // The runner's totals count what no record names (a test cancelled with its file): never a pass.
      if ((summary.totals.fail ?? 0) + (summary.totals.cancelled ?? 0) > 0 && summary.problems.length === 0)
        summary.problems.push({
          kind: 'failed',
          file: '(see above)',
          test: undefined,
          error: `node's runner counted ${summary.totals.fail ?? 0} failed and ${summary.totals.cancelled ?? 0} cancelled`,
          whileRunning: [],
        });
      if (code === 0 && summary.problems.length > 0) code = 1;
      if (code !== 0 && summary.problems.length === 0)
        summary.problems.push({
          kind: 'failed',
          file: '(the runner)',
          test: undefined,
          error: signal ? `stopped by ${signal}` : `exited with code ${code}`,
          whileRunning: [],
        });
      resolve({ name, files: list.length, ms: Date.now() - started, code, ...summary });
    });
  });
}

/** The last lines of the run: each pass's time and slowest files, then, if anything went wrong, what and where. */
function closingSummary() {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  say(
    `\n# ${workspace ?? root}: ${seconds(Date.now() - started)} in all, load average ${load} (1, 5, 15 min) at the end`,
  );
  for (const pass of passes) {
    say(`# ${pass.name} pass: ${pass.files} file${pass.files === 1 ? '' : 's'} in ${seconds(pass.ms)}; slowest:`);
    for (const d of pass.durations.slice(0, 10))
      say(
        `#   ${seconds(d.ms).padStart(8)}  ${d.file}${d.ms > 60_000 ? '  (over the 60 s a file may take here)' : ''}`,
      );
  }
  if (code === 0) return;
  const problems = passes.flatMap((p) => p.problems.map((problem) => ({ ...problem, pass: p.name })));
  const files = new Set(problems.map((p) => p.file)).size;
  const kinds = [...new Set(problems.map((p) => p.kind))].map(
    (kind) => `${problems.filter((p) => p.kind === kind).length} ${kind}`,
  );
  say(
    `\nFAILED: ${problems.length} test${problems.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'} (${kinds.join(', ')}):`,
  );
  for (const pass of passes.filter((p) => p.problems.length > 0)) {
    say(`in the ${pass.name} pass:`);
    for (const line of problemLines(pass.problems)) say(line);
  }
  if (second === undefined && postgresPass.length > 0)
    say(
      `The postgres pass (${postgresPass.length} file${postgresPass.length === 1 ? '' : 's'}) did not run: the sqlite pass failed.`,
    );
  say(`Run one file again: npm test${workspace ? ` -w ${workspace}` : ''} -- ${problems[0].file}`);
}

// Runs every *.test.ts under the package's src/ and test/ with node's test runner (TypeScript through tsx).
// Node 20's --test takes no globs, hence the walk. Extra arguments narrow the run to matching paths.
// Suites that start a Cairn run once per backend (see runPass below).
// With CAIRN_TEST_STRICT set (CI sets it), a run that skipped any test fails: nothing goes green by skipping.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// npm runs a workspace's scripts in that workspace's folder.
const root = process.cwd();
const filters = process.argv.slice(2);
const strict = ['1', 'true', 'yes'].includes((process.env.CAIRN_TEST_STRICT ?? '').toLowerCase());

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
  console.error(`No test files match ${filters.join(' ')}`);
  process.exit(1);
}
if (!process.env.CAIRN_TEST_DATABASE_URL) {
  const what = 'CAIRN_TEST_DATABASE_URL is not set; PostgreSQL-backed tests will be skipped (each says why)';
  if (strict) console.error(`# STRICT: ${what}, so this run will fail.`);
  else console.log(`# Note: ${what}.`);
}

// Suites that start a Cairn without choosing a backend run a second time on PostgreSQL: every storage
// suite runs once per backend. Files that loop over backends themselves (postgresServerUrl) run once.
const choosesBackend = (file) => /postgresServerUrl|postgresTestUrl|cairn-test: one backend/.test(readFileSync(join(root, file), 'utf8'));
const startsCairn = (file) => /startTestCairn\(|startTenantCairn\(|useTenantCairn\(|startPortalServer\(|portalJourney\(|startCaptureCairn\(/.test(readFileSync(join(root, file), 'utf8'));
const postgresPass = process.env.CAIRN_TEST_DATABASE_URL ? files.filter((f) => startsCairn(f) && !choosesBackend(f)) : [];

const first = await runPass(files, {}, 'sqlite (and the files that pick their backends)');
const second = first.code === 0 && postgresPass.length > 0 ? await runPass(postgresPass, { CAIRN_TEST_BACKEND: 'postgres' }, 'postgres') : { code: 0, skipped: 0, todo: 0 };
const skipped = first.skipped + second.skipped;
const todo = first.todo + second.todo;
const code = first.code || second.code;
if (code === 0 && strict && (skipped > 0 || todo > 0)) {
  console.error(`\n# STRICT: ${skipped} skipped and ${todo} todo test(s) in ${root}. CI does not pass by skipping: install what they need (see .ci/run) or remove the skip.`);
  process.exit(1);
}
process.exit(code);

/** One run of node's test runner over `list`; resolves with its exit code and the skips and todos it reported. */
function runPass(list, env, name) {
  console.log(`# backend pass: ${name} (${list.length} file${list.length === 1 ? '' : 's'})`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...list], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['inherit', strict ? 'pipe' : 'inherit', 'inherit'],
    });
    // The runner's closing summary ("# skipped N", "# todo N") is read as it streams past.
    const counts = { skipped: 0, todo: 0 };
    const directives = { skipped: 0, todo: 0 };
    let tail = '';
    child.stdout?.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (tail + chunk.toString('utf8')).split('\n');
      tail = lines.pop() ?? '';
      for (const line of lines) {
        // A skipped suite counts no test in the summary, so its own "ok N - name # SKIP" line is counted as well.
        const m = /^# (skipped|todo) (\d+)\s*$/.exec(line);
        if (m) counts[m[1]] = Math.max(counts[m[1]], Number(m[2]));
        const directive = /^\s*(?:not )?ok \d+ .*# (SKIP|TODO)\b/.exec(line);
        if (directive) directives[directive[1] === 'SKIP' ? 'skipped' : 'todo'] += 1;
      }
    });
    child.on('close', (code, signal) => {
      resolve({ code: code ?? (signal ? 1 : 0), skipped: Math.max(counts.skipped, directives.skipped), todo: Math.max(counts.todo, directives.todo) });
    });
  });
}

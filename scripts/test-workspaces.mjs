// `npm test`'s last step: each workspace's tests in turn, as `npm run test --workspaces --if-present`
// runs them (every one, after a failure too), then the closing lines of them all. npm alone would end
// on the last workspace's output, with an earlier one's failure thousands of lines up.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = process.cwd();
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** The workspaces with a test script, in npm's order; patterns as package.json gives them ("packages/*" or a folder). */
function workspaces() {
  return (readJson(join(root, 'package.json')).workspaces ?? [])
    .flatMap((pattern) =>
      pattern.endsWith('/*')
        ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
            .filter((d) => d.isDirectory())
            .map((d) => `${pattern.slice(0, -2)}/${d.name}`)
            .sort()
        : [pattern],
    )
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, pkg: readJson(join(root, dir, 'package.json')) }))
    .filter(({ pkg }) => pkg.scripts?.test);
}

function run(name, summaryFile) {
  const npm = process.env.npm_execpath;
  const [command, args] = npm
    ? [process.execPath, [npm, 'run', 'test', '-w', name]]
    : ['npm', ['run', 'test', '-w', name]];
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, CAIRN_TEST_SUMMARY_FILE: summaryFile },
    });
    child.on('error', (error) => resolve(`${error.message}`));
    child.on('close', (code, signal) => resolve(code ?? signal));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'cairn-test-summaries-'));
const results = [];
const started = Date.now();
for (const [k, { pkg }] of workspaces().entries()) {
  const file = join(dir, `${k}.txt`);
  const began = Date.now();
  const code = await run(pkg.name, file);
  const closing = existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n') : [];
  results.push({ name: pkg.name, code, ms: Date.now() - began, closing });
}
rmSync(dir, { recursive: true, force: true });

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const failed = results.filter((r) => r.code !== 0);
const width = Math.max(...results.map((r) => r.name.length));
console.log(
  `\n# npm test: ${results.length} workspaces in ${seconds(Date.now() - started)}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} at the end`,
);
for (const r of results)
  console.log(`#   ${r.code === 0 ? 'ok    ' : 'FAILED'}  ${r.name.padEnd(width)}  ${seconds(r.ms)}`);
for (const r of failed) {
  // From its FAILED (or STRICT) line on: what went wrong, not its timings again.
  const from = r.closing.findIndex((l) => /^(FAILED:|# STRICT:|CAIRN_TEST_TIMEOUT_MS|No test files)/.test(l));
  console.log(`\n${r.name}:`);
  if (from >= 0) for (const line of r.closing.slice(from)) console.log(line);
  else console.log(`its tests exited with ${r.code} before any closing summary: read its output above.`);
}
if (failed.length > 0) console.log(`\nFAILED: ${failed.map((r) => r.name).join(', ')}.`);
process.exit(failed.length > 0 ? 1 : 0);

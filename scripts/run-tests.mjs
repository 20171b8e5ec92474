// Runs every *.test.ts under the package's src/ and test/ with node's test runner (TypeScript through tsx).
// Node 20's --test takes no globs, hence the walk. Extra arguments narrow the run to matching paths.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

// npm runs a workspace's scripts in that workspace's folder.
const root = process.cwd();
const filters = process.argv.slice(2);

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.name.endsWith('.test.ts')) yield relative(root, path);
  }
}

const files = ['src', 'test'].filter((dir) => existsSync(join(root, dir))).flatMap((dir) => [...walk(join(root, dir))]).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error(`No test files match ${filters.join(' ')}`);
  process.exit(1);
}
if (!process.env.CAIRN_TEST_DATABASE_URL) {
  console.log('# Note: CAIRN_TEST_DATABASE_URL is not set; PostgreSQL-backed tests will be skipped (each says why).');
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);

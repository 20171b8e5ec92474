import assert from 'node:assert/strict';
import { test } from 'node:test';
import picomatch from 'picomatch';
import type { Applies } from '../store/types.js';
import { contextReason, GLOB_STEPS_PER_REQUEST, globProblem, TaskContext } from './applies.js';
import { compileGlob, GlobError, globMatchesPath, MatchBudget } from './glob.js';

const segments = (path: string) => path.split('/').filter(Boolean);
const matches = (glob: string, path: string) =>
  globMatchesPath(compileGlob(glob), segments(path), new MatchBudget(1e9));

test('globs match as a rule author expects (hand-written cases)', () => {
  const cases: [string, string, boolean][] = [
    ['migrations/**', 'migrations/0042_add_vat.sql', true],
    ['migrations/**', 'src/migrations/0042.sql', true], // any tail at a folder boundary
    ['migrations/**', 'migrationsx/1.sql', false],
    ['migrations/', 'migrations/1.sql', true], // a trailing slash: everything below
    ['**/*.tf', 'infra/prod/main.tf', true],
    ['*.tf', 'infra/prod/main.tf', true], // no slash: file names anywhere
    ['*.tf', 'infra/prod/main.tfvars', false],
    ['**/.nvmrc', '.nvmrc', true],
    ['**/.eslintrc*', 'web/.eslintrc.json', true],
    ['.github/workflows/**', '/home/ana/repo/.github/workflows/ci.yml', true],
    ['dags/**/*.py', 'dags/a/b/c.py', true],
    ['dags/**/*.py', 'dags/c.py', true],
    ['dags/**/*.py', 'dags/c.pyc', false],
    ['**/values*.yaml', 'charts/api/values-prod.yaml', true],
    ['src/*.ts', 'src/a/b.ts', false], // a star stays within a folder
    ['src/?.ts', 'src/a.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['[a-c]x.md', 'bx.md', true],
    ['[!a-c]x.md', 'bx.md', false],
    ['[^a-c]x.md', 'dx.md', true],
    ['*.{ts,tsx}', 'ui/button.tsx', true],
    ['{api,web}/**/*.{ts,js}', 'web/x/y.js', true],
    ['{api,web}/**/*.{ts,js}', 'cli/x/y.js', false],
    ['db/{1..3}.sql', 'db/2.sql', true],
    ['db/{1..3}.sql', 'db/4.sql', false],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['./charts/**', 'charts/x.yaml', true],
    ['/charts/**', 'charts/x.yaml', true],
    ['Dockerfile', 'svc/Dockerfile', true],
    ['Dockerfile', 'svc/dockerfile', false], // case-sensitive, as picomatch and git
  ];
  for (const [glob, path, want] of cases) assert.equal(matches(glob, path), want, `${glob} ~ ${path}`);
});

test('on the syntax both share, matching agrees with picomatch (the matcher it replaces) on every pair', () => {
  const globs = [
    '**/*.sql',
    'migrations/**',
    'src/*/index.ts',
    '*.md',
    'a/**/b/*.ts',
    '**/test/**',
    'x?y/*',
    '[ab]*/c',
    '**/{api,web}/*.ts',
    '*.{js,mjs}',
    'docs/**/*.md',
    '.github/**',
    '**/.*rc',
    'a*b*c',
    '*/*/*',
  ];
  const paths = [
    'migrations/1.sql',
    'db/migrations/1.sql',
    'src/a/index.ts',
    'src/a/b/index.ts',
    'README.md',
    'docs/x/README.md',
    'a/b/c.ts',
    'a/x/y/b/c.ts',
    'a/b.ts',
    'pkg/test/x.ts',
    'xay/z',
    'xy/z',
    'b1/c',
    'c/c',
    'svc/api/x.ts',
    'web/x.ts',
    'x.mjs',
    '.github/workflows/ci.yml',
    'web/.eslintrc',
    'abc',
    'aXbYc',
    'a/b/c',
    'a/b',
  ];
  let compared = 0;
  for (const glob of globs) {
    const pm = picomatch(glob, { dot: true, strictBrackets: true });
    const pmMatch = glob.includes('/') ? pm : (p: string) => pm(p.slice(p.lastIndexOf('/') + 1));
    for (const path of paths) {
      const parts = segments(path);
      const tails = parts.map((_, i) => parts.slice(i).join('/'));
      assert.equal(
        matches(glob, path),
        tails.some((t) => pmMatch(t)),
        `${glob} ~ ${path}`,
      );
      compared++;
    }
  }
  assert.equal(compared, globs.length * paths.length);
});

test('a glob that cannot be matched is refused with a message that names what to write instead', () => {
  for (const [glob, says] of [
    ['src/[a-', 'not closed'],
    ['src/{a,b', 'not closed'],
    ['src/a}', 'has no "{"'],
    ['!src/**', 'negated'],
    ['src/@(a|b).ts', 'braces'],
    ['[[:alpha:]]', 'ranges'],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}', 'more than 64'],
    ['db/{1..500}.sql', 'more than 64'],
    ['[z-a]', 'backwards'],
    ['a\0b', 'NUL'],
  ] as const) {
    const problem = globProblem(glob);
    assert.ok(problem?.includes(says), `${JSON.stringify(glob)}: ${problem}`);
  }
  assert.throws(() => compileGlob('///'), GlobError);
  assert.equal(globProblem('**/*.{ts,tsx}'), undefined);
});

test('the glob that stalled Cairn costs at most the product of its length and the path length', () => {
  const glob = '*a*a*a*a*a*a*a*a*a*ab'; // 21 characters: a backtracking regex never finishes on the path below
  assert.equal(glob.length, 21);
  const path = 'a'.repeat(60);
  const budget = new MatchBudget(1e9);
  const t0 = performance.now();
  assert.equal(globMatchesPath(compileGlob(glob), [path], budget), false);
  assert.ok(budget.used <= (glob.length + 1) * (path.length + 1) + path.length, `steps ${budget.used}`);
  assert.ok(performance.now() - t0 < 50);
  assert.equal(globMatchesPath(compileGlob(glob), [`${path}b`], new MatchBudget(1e9)), true);
});

test('a request stops matching when its budget is spent, and spends it on the cheapest globs first', async () => {
  // 40 rules of 20 globs, each glob as costly as a glob within the limits can be against a long name.
  const hostile: Applies[] = Array.from({ length: 40 }, (_, r) => ({
    always: false,
    projects: [],
    files: Array.from({ length: 20 }, (_, g) => `**/*${'a'.repeat(150 + ((r * 20 + g) % 45))}${r}-${g}b`),
  }));
  const plain: Applies = { always: false, projects: [], files: ['migrations/**'] };
  const files = Array.from({ length: 49 }, (_, i) => `src/${'a'.repeat(480)}${i}`);
  files.push('db/migrations/7.sql');
  for (let round = 0; round < 2; round++) {
    const context = new TaskContext(files, undefined);
    const t0 = performance.now();
    await context.prepare([...hostile, plain]);
    const ms = performance.now() - t0;
    assert.ok(context.budget.spent, 'these globs cost more than one request may spend');
    assert.ok(context.budget.used <= GLOB_STEPS_PER_REQUEST + 100_000, `steps ${context.budget.used}`);
    assert.ok(ms < 1000, `${ms} ms`);
    assert.equal(context.reason(plain), 'file: migrations/**');
    assert.equal(context.reason(hostile[0]), undefined);
    assert.ok(context.unmatched.size > 0 && context.unmatched.size <= 800);
  }
});

test('project names match whole and without regard to case; a stored glob that no longer compiles never matches', async () => {
  const applies: Applies = { always: false, files: ['src/@(a|b).ts', 'src/**'], projects: ['Ledger'] };
  assert.equal(await contextReason(applies, [], 'ledger'), 'project: Ledger');
  assert.equal(await contextReason(applies, [], 'ledger-2'), undefined);
  assert.equal(await contextReason(applies, ['src/a.ts'], undefined), 'file: src/**');
  assert.equal(await contextReason({ ...applies, files: ['src/@(a|b).ts'] }, ['src/a.ts'], undefined), undefined);
});

test('a rule with both files and projects is scoped to those files in those projects', async () => {
  const migrations: Applies = { always: false, files: ['migrations/**'], projects: ['ledger'] };
  // In its project, touching a matching file: given; touching other files only: not.
  assert.equal(await contextReason(migrations, ['migrations/0042_add_index.sql'], 'ledger'), 'file: migrations/**');
  assert.equal(await contextReason(migrations, ['src/app.ts'], 'ledger'), undefined);
  // A matching file in another project: not; in a task that names no project: given.
  assert.equal(await contextReason(migrations, ['migrations/0042_add_index.sql'], 'billing'), undefined);
  assert.equal(await contextReason(migrations, ['migrations/0042_add_index.sql'], undefined), 'file: migrations/**');
  // A task that names its project but no files: given on the project, its files not being known.
  assert.equal(await contextReason(migrations, [], 'Ledger'), 'project: ledger');
  assert.equal(await contextReason(migrations, [], 'billing'), undefined);
});

test('matching yields to the event loop while it works: a timer set before it fires before it ends', async () => {
  const rules: Applies[] = Array.from({ length: 40 }, (_, r) => ({
    always: false,
    projects: [],
    files: Array.from({ length: 20 }, (_, g) => `**/*${'a'.repeat(150)}${r}-${g}b`),
  }));
  const files = Array.from({ length: 50 }, (_, i) => `src/${'a'.repeat(480)}${i}`);
  let fired = false;
  setImmediate(() => {
    fired = true;
  });
  const context = new TaskContext(files, undefined);
  const working = context.prepare(rules);
  assert.equal(fired, false);
  await working;
  assert.equal(fired, true);
  assert.ok(context.budget.used > 100_000);
});

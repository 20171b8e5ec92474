import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** What opens storage: the calls (and `new`) that start a Cairn, a database or a store. Helpers that reach one count too. */
export const OPENERS = [
  'startTestCairn',
  'startCairnProcess',
  'createTestDatabase',
  'emptyStorage',
  'startPrivatePostgres',
  'openCairn',
  'openStore',
  'openSqliteDatabase',
  'openPostgresPool',
  'SqliteStore',
  'PostgresStore',
];

/** Declares the whole file for each backend (the runner runs it once per backend). Helpers that call it count too. */
export const FILE_DECLARERS = ['runFileOnEachBackend'];

/** Runs the suites given to it once per backend. Helpers that call it count too. */
export const SUITE_DECLARERS = ['forEachBackend'];

/** A test file that opens storage without running on every backend, and the first such call. */
export interface OneBackendSuite {
  file: string;
  line: number;
  call: string;
}

/** The repository's test files and the modules tests import (helpers, fixtures, conformance cases), by path from `root`. */
export function repositoryTests(root: string): { tests: string[]; helpers: string[] } {
  const tests: string[] = [];
  const helpers: string[] = [];
  const packages = join(root, 'packages');
  for (const name of readdirSync(packages)) {
    for (const dir of ['src', 'test']) {
      const top = join(packages, name, dir);
      if (!existsSync(top)) continue;
      for (const file of sources(top)) {
        const path = relative(root, file);
        if (/\.test\.tsx?$/.test(path)) tests.push(path);
        else if (dir === 'test' || /\/src\/testing\//.test(path) || /\.(case|fixture)\.ts$/.test(path))
          helpers.push(path);
      }
    }
  }
  return { tests: tests.sort(), helpers: helpers.sort() };
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/**
 * The test files among `tests` that open storage on one backend only: they reach an opener (directly or
 * through a helper, under whatever name) and neither declare the file for each backend nor make that
 * call inside a suite declared for each backend. Helpers are found by what their bodies call, so a new
 * helper name cannot hide a Cairn from this check.
 */
export function oneBackendSuites(root: string, tests: string[], helpers: string[]): OneBackendSuite[] {
  const parsed = new Map([...tests, ...helpers].map((f) => [f, parse(root, f)]));
  const exported = new Map<string, ts.Node>();
  for (const f of helpers) for (const [name, body] of functions(parsed.get(f)!, true)) exported.set(name, body);
  const openers = closure(OPENERS, exported);
  const fileDeclarers = closure(FILE_DECLARERS, exported);
  const suiteDeclarers = closure(SUITE_DECLARERS, exported);
  const found: OneBackendSuite[] = [];
  for (const file of tests) {
    const source = parsed.get(file)!;
    const local = new Map(functions(source, false));
    const fileOpeners = closure([...openers], local);
    if (calls(source).some((c) => fileDeclarers.has(c.name))) continue;
    // A call inside one of the file's own functions counts where that function is called.
    const bodies = new Set(local.values());
    const stray = calls(source).find(
      (c) =>
        fileOpeners.has(c.name) &&
        !suiteDeclarers.has(c.name) &&
        !within(c.node, (n) => bodies.has(n)) &&
        !within(c.node, (n) => isCallOf(n, suiteDeclarers)),
    );
    if (stray)
      found.push({
        file,
        line: source.getLineAndCharacterOfPosition(stray.node.getStart()).line + 1,
        call: stray.name,
      });
  }
  return found;
}

function parse(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The file's top-level functions (`function f` and `const f = () => …`), only the exported ones if asked. */
function functions(source: ts.SourceFile, exportedOnly: boolean): [string, ts.Node][] {
  const out: [string, ts.Node][] = [];
  const isExported = (s: ts.Statement) =>
    ts.canHaveModifiers(s) && (ts.getModifiers(s) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const s of source.statements) {
    if (exportedOnly && !isExported(s)) continue;
    if (ts.isFunctionDeclaration(s) && s.name && s.body) out.push([s.name.text, s.body]);
    if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations)
        if (
          ts.isIdentifier(d.name) &&
          d.initializer &&
          (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))
        )
          out.push([d.name.text, d.initializer]);
  }
  return out;
}

/** Every call and `new` under `node` whose callee is a plain name. */
function calls(node: ts.Node): { name: string; node: ts.CallExpression | ts.NewExpression }[] {
  const out: { name: string; node: ts.CallExpression | ts.NewExpression }[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && ts.isIdentifier(n.expression))
      out.push({ name: n.expression.text, node: n });
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

/** The names in `seed`, and every function among `bodies` that calls one of them, directly or through another. */
function closure(seed: string[], bodies: Map<string, ts.Node>): Set<string> {
  const names = new Set(seed);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, body] of bodies)
      if (!names.has(name) && calls(body).some((c) => names.has(c.name))) {
        names.add(name);
        grew = true;
      }
  }
  return names;
}

function within(node: ts.Node, test: (ancestor: ts.Node) => boolean): boolean {
  for (let n = node.parent; n; n = n.parent) if (test(n)) return true;
  return false;
}

function isCallOf(node: ts.Node, names: Set<string>): boolean {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && names.has(node.expression.text);
}

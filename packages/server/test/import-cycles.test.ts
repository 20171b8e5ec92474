import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// No module may reach itself through its imports, in any package: a cycle means neither side can be
// read, tested or moved on its own. Type-only imports count too: they tie the files together as much.
const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));

function* sourcesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourcesUnder(path);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) yield path;
  }
}

/** Every package's src/ files (tests aside: nothing imports a test). */
function packageSources(): string[] {
  return readdirSync(PACKAGES)
    .map((name) => join(PACKAGES, name, 'src'))
    .filter((src) => existsSync(src))
    .flatMap((src) => [...sourcesUnder(src)]);
}

// import … from './x', import './x', export … from './x', the closing `} from './x'` of a long import, import('./x').
const RELATIVE_IMPORT =
  /^\s*import\s+(?:[^'\n;]*?\sfrom\s+)?'(\.[^']+)'|^\s*export\s+[^'\n;]*?\sfrom\s+'(\.[^']+)'|^\}\s*from\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gm;

/** The files each file imports by a relative path, resolved as TypeScript resolves `./x.js`. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const base = resolve(dirname(file), (m[1] ?? m[2] ?? m[3] ?? m[4])!).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => known.has(c));
      if (target) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** One cycle per strongly connected group of files (Tarjan), each as a path that returns to its start. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) groups.push(group);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups.map((group) => pathThrough(graph, new Set(group), group.at(-1)!));
}

/** A shortest way from `start` back to itself inside one group, for a readable failure. */
function pathThrough(graph: Map<string, string[]>, group: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!group.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

test('the cycle finder finds a planted cycle and its path, and passes a tree', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c', 'd']],
    ['c', ['a']],
    ['d', []],
    ['e', ['a', 'e']],
  ]);
  assert.deepEqual(findCycles(graph), [
    ['a', 'b', 'c', 'a'],
    ['e', 'e'],
  ]);
  assert.deepEqual(
    findCycles(
      new Map([
        ['a', ['b', 'c']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    [],
  );
});

test('the import graph is read: the store, the portal and a long multi-line import are seen', () => {
  const graph = importGraph(packageSources());
  const edges = (file: string) => (graph.get(join(PACKAGES, file)) ?? []).map((t) => relative(PACKAGES, t));
  assert.ok(graph.size > 200, `only ${graph.size} source files found under ${PACKAGES}`);
  assert.ok(
    edges('server/src/store/store.ts').includes('server/src/store/types.ts'),
    'the closing `} from` of a long import is read',
  );
  assert.ok(edges('server/src/store/kysely-store.ts').includes('server/src/search/index.ts'));
  assert.ok(
    edges('portal/src/pages/search-page.tsx').includes('portal/src/pages/search-path.ts'),
    '.js specifiers resolve to .ts files',
  );
});

test('no import cycles in any package', () => {
  const cycles = findCycles(importGraph(packageSources())).map((path) =>
    path.map((f) => relative(PACKAGES, f)).join(' → '),
  );
  assert.deepEqual(cycles, [], 'move what both sides need into a small module of its own that neither imports back');
});

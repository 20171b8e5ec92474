import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The layers of ARCHITECTURE.md, lowest first. A module may import its own layer and the layers below it.
const LAYERS: string[][] = [
  ['errors', 'log', 'config', 'cache'],
  ['search'],
  ['store', 'redaction'],
  ['domain', 'auth', 'rate-limits', 'capture', 'embeddings'],
  ['mcp'],
  ['http'],
  ['runtime'],
  ['cli'],
];
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
// Test support may reach anything; tests, shared test cases and fixtures are not part of the running service.
const isTestSupport = (file: string) => /\.(test|case|fixture)\.ts$/.test(file) || file.startsWith(`testing${sep}`);

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield relative(SRC, path);
  }
}

const layerOf = (folder: string) => LAYERS.findIndex((names) => names.includes(folder));
const topFolder = (file: string) => file.split(sep)[0]!;

/** Every relative import of a file, as a path under src/ (or outside it), as written (`x.js`). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    relative(SRC, resolve(dirname(join(SRC, file)), m[1]!)),
  );
}

/** The relative imports of a file that bring in types only (`import type { … } from`). */
function typeOnlyImportsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  return [...text.matchAll(/^import\s+type\s+\{[^}]*\}\s+from\s+'(\.{1,2}\/[^']+)'/gm)].map((m) =>
    relative(SRC, resolve(dirname(join(SRC, file)), m[1]!)),
  );
}

// Search ranks the records the store defines (an Entry, a SearchQuery): of the store above it, it may
// read those types and nothing else, so that it never reaches the database but through SearchSource.
const RECORD_TYPES = join('store', 'types.js');
const SEARCH_DOOR = join('search', 'index.js');

/** Why this import of a running module breaks the layering, if it does. */
function layerViolation(file: string, target: string, typeOnly: boolean): string | undefined {
  if (target.startsWith('..')) return `${file} reaches outside src/: ${target}`;
  const [from, to] = [topFolder(file), topFolder(target)];
  if (from === 'search' && target === RECORD_TYPES && typeOnly) return undefined;
  if (layerOf(to) > layerOf(from)) return `${file} (${from}) imports ${target} (${to})`;
  if (to === 'search' && from !== 'search' && target !== SEARCH_DOOR)
    return `${file} reaches into search/ past its door: import ${SEARCH_DOOR} instead of ${target}`;
  return undefined;
}

test('every folder of src/ has a layer', () => {
  const folders = new Set([...sources(SRC)].filter((f) => f.includes(sep) && !isTestSupport(f)).map(topFolder));
  const unplaced = [...folders].filter((f) => layerOf(f) < 0);
  assert.deepEqual(unplaced, [], `add these folders to LAYERS here and to ARCHITECTURE.md: ${unplaced.join(', ')}`);
});

test('no module imports a higher layer (adapters over domain over auth and store, store over search)', () => {
  const violations: string[] = [];
  for (const file of sources(SRC)) {
    if (isTestSupport(file) || !file.includes(sep)) continue;
    const typeOnly = new Set(typeOnlyImportsOf(file));
    for (const target of importsOf(file)) {
      const violation = layerViolation(file, target, typeOnly.has(target));
      if (violation) violations.push(violation);
    }
  }
  assert.deepEqual(violations, []);
});

test('the check itself catches an upward import', () => {
  // Guards the regex and the resolution above against silently matching nothing.
  const domainFiles = [...sources(SRC)].filter((f) => topFolder(f) === 'domain' && !isTestSupport(f));
  assert.ok(domainFiles.length > 5, 'the domain folder is found');
  const seen = domainFiles.flatMap(importsOf).map(topFolder);
  assert.ok(seen.includes('store') && seen.includes('errors'), 'imports of domain modules are read');
  assert.ok(
    layerOf('http') > layerOf('domain') && layerOf('domain') > layerOf('store') && layerOf('store') > layerOf('search'),
  );
  assert.match(layerViolation(join('domain', 'entries.ts'), join('http', 'app.js'), false) ?? '', /imports/);
});

// What builds an HTTP answer. auth/oauth/safe-fetch.ts is exempt: its Response is what a fetch returns, not an answer.
const BUILDS_RESPONSE = /\bResponse\.json\(|\bnew Response\(|\bc\.(json|body|text|html)\(/;
const FETCH_ADAPTER = join('auth', 'oauth', 'safe-fetch.ts');

test('HTTP answers are built in http/ only', () => {
  const below = [...sources(SRC)].filter(
    (f) => layerOf(topFolder(f)) < layerOf('http') && !isTestSupport(f) && f !== FETCH_ADAPTER,
  );
  assert.ok(below.length > 50, 'the layers below http/ are found');
  const building = below.filter((f) => BUILDS_RESPONSE.test(readFileSync(join(SRC, f), 'utf8')));
  assert.deepEqual(building, [], 'these build HTTP responses below http/; build them in http/ from what they return');
  assert.ok(BUILDS_RESPONSE.test('return Response.json({ error }, { status: 503 })'), 'the check matches a response');
});

test('search reads the store only through SearchSource, and the others reach search only through its door', () => {
  const searchFiles = [...sources(SRC)].filter((f) => topFolder(f) === 'search' && !isTestSupport(f));
  assert.ok(
    searchFiles.some((f) => typeOnlyImportsOf(f).includes(RECORD_TYPES)),
    'the record types search reads are found',
  );
  // Search may not reach the store's persistence, nor its record types but as types.
  assert.match(
    layerViolation(join('search', 'rank-query.ts'), join('store', 'kysely-store.js'), true) ?? '',
    /imports/,
  );
  assert.match(layerViolation(join('search', 'rank-query.ts'), RECORD_TYPES, false) ?? '', /imports/);
  assert.equal(layerViolation(join('search', 'rank-query.ts'), RECORD_TYPES, true), undefined);
  // The store calls search through index.ts as every other layer does; the domain gets its text helpers there.
  const storeImports = [...sources(SRC)]
    .filter((f) => topFolder(f) === 'store' && !isTestSupport(f))
    .flatMap(importsOf);
  assert.ok(storeImports.includes(SEARCH_DOOR), 'the store calls search');
  assert.match(layerViolation(join('store', 'kysely-store.ts'), join('search', 'pool-index.js'), false) ?? '', /door/);
  assert.match(layerViolation(join('domain', 'similarity.ts'), join('search', 'search-terms.js'), false) ?? '', /door/);
  assert.equal(layerViolation(join('search', 'rank-query.ts'), join('search', 'pool-index.js'), false), undefined);
});

test('packages meet only through the names they declare in package.json, never by a path into another package', () => {
  const packages = fileURLToPath(new URL('../../', import.meta.url));
  const violations: string[] = [];
  for (const name of readdirSync(packages)) {
    const src = join(packages, name, 'src');
    let files: string[];
    try {
      files = [...sourcesUnder(src)];
    } catch {
      continue;
    }
    const declared = JSON.parse(readFileSync(join(packages, name, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const deps = new Set(Object.keys({ ...declared.dependencies, ...declared.devDependencies }));
    for (const file of files.filter(
      (f) => !/\.(test|case|fixture)\.tsx?$/.test(f) && !f.includes(`${sep}testing${sep}`),
    )) {
      const text = readFileSync(file, 'utf8');
      // import … from 'x', import 'x', export … from 'x', the closing `} from 'x'` of a long import, import('x').
      const statements =
        /^\s*import\s+(?:[^'\n;]*?\sfrom\s+)?'([^']+)'|^\s*export\s+[^'\n;]*?\sfrom\s+'([^']+)'|^\}\s*from\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm;
      for (const m of text.matchAll(statements)) {
        const spec = (m[1] ?? m[2] ?? m[3] ?? m[4])!;
        if (spec.startsWith('.')) {
          if (!resolve(dirname(file), spec).startsWith(join(packages, name) + sep))
            violations.push(`${relative(packages, file)} reaches into ${spec}`);
        } else if (!spec.startsWith('node:')) {
          const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          if (!deps.has(pkg))
            violations.push(`${relative(packages, file)} imports ${pkg} without declaring it in ${name}/package.json`);
        }
      }
    }
  }
  assert.deepEqual(violations, []);
});

function* sourcesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourcesUnder(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

// Cairn supports Node 20.18.1 (README, "Set-up"): nothing `npm install` puts in place may declare it needs a newer
// Node, or npm warns EBADENGINE on every install. Test-only tools that do live in test-clients/ instead.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const { intersects } = require('semver') as { intersects: (a: string, b: string) => boolean };
const root = new URL('../../../', import.meta.url);
const MINIMUM = (
  JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } }
).engines.node.replace(/^>=\s*/, '');

test(`every package in package-lock.json accepts a Node 20 release from ${MINIMUM} on (no EBADENGINE on npm install with Node 20)`, () => {
  const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[] }>;
  };
  const refusing = Object.entries(lock.packages)
    .filter(
      ([, p]) =>
        !Array.isArray(p.engines) && typeof p.engines?.node === 'string' && !intersects(p.engines.node, `^${MINIMUM}`),
    )
    .map(([path, p]) => `${path} (node ${(p.engines as { node: string }).node})`);
  assert.ok(Object.keys(lock.packages).length > 100, 'the lock file was read');
  assert.deepEqual(
    refusing,
    [],
    'move what needs a newer Node to test-clients/ (scripts/install-test-clients.mjs), or pin a version that accepts it',
  );
});

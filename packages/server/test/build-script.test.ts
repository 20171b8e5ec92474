// `npm run build` (what `npm install` runs) builds each workspace once, in the order they need each other:
// the contract first (every package imports it), the installer before the server (which packs it).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

test('the root build names every workspace that builds, once, the contract first and the installer before the server', () => {
  const script: string = readJson(join(ROOT, 'package.json')).scripts.build;
  const named = [...script.matchAll(/-w (\S+)/g)].map((m) => m[1]!);
  const building = readdirSync(join(ROOT, 'packages'))
    .map((dir) => readJson(join(ROOT, 'packages', dir, 'package.json')))
    .filter((pkg) => pkg.scripts?.build)
    .map((pkg) => pkg.name as string);
  assert.ok(building.length >= 5, `workspaces that build: ${building.join(', ')}`);
  assert.deepEqual([...named].sort(), [...building].sort(), 'each workspace with a build script is built once');
  assert.equal(named[0], '@cairn/contract');
  assert.ok(named.indexOf('cairn-mcp-installer') < named.indexOf('@cairn/server'));
  assert.doesNotMatch(script, /--workspaces/, 'a --workspaces run would build the contract a second time');
});

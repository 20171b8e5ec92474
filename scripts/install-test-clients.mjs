// Installs the test-only tools (the real AI client CLIs the tests drive, Biome) into test-clients/, kept out of Cairn's own install.
// `npm test` runs this first; it does nothing when the installed set already matches the lockfile.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../test-clients/', import.meta.url));
const stamp = `${dir}node_modules/.cairn-lock-hash`;
const hash = createHash('sha256')
  .update(readFileSync(`${dir}package-lock.json`))
  .digest('hex');
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) process.exit(0);

console.log('# Installing the test-only tools (the claude, gemini and codex CLIs, mcpb, Biome) into test-clients/ …');
const started = Date.now();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// `npm install` with the lockfile present installs exactly what it pins; `npm ci` would refuse it, because the
// registry here lacks some of Biome's optional per-platform packages that the lockfile cannot list.
const result = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error'], {
  cwd: dir,
  stdio: 'inherit',
});
if (result.status !== 0) {
  console.error(
    'Could not install the test-only tools in test-clients/: check that the npm registry is reachable, then run npm test again.',
  );
  process.exit(result.status ?? 1);
}
writeFileSync(stamp, hash);
console.log(`# Installed in ${Math.round((Date.now() - started) / 1000)} s.`);

// Builds dist/cairn-capture.js and copies it into the plugin, which a git marketplace installs as committed.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleCapture } from './bundle.mjs';

const pkg = new URL('..', import.meta.url).pathname;
const targets = [
  `${pkg}dist/cairn-capture.js`,
  new URL('../../../plugins/cairn/hooks/cairn-capture.js', import.meta.url).pathname,
];
const text = await bundleCapture();
for (const file of targets) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

// Packs the built installer into dist/install/, where the server serves it for `npx -y <base>/install/…`.
// Runs after the installer's own build (workspaces build in name order: clients, installer, server).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const installer = fileURLToPath(new URL('../../installer/', import.meta.url));
const out = fileURLToPath(new URL('../dist/install/', import.meta.url));
if (!existsSync(`${installer}dist/cairn-mcp-installer.js`)) {
  console.error('pack-installer: the installer is not built; run "npm run build -w cairn-mcp-installer" first.');
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const [{ filename }] = JSON.parse(
  // --workspaces=false: run inside this monorepo, npm pack <folder> warns "Ignoring workspaces" at every build.
  execFileSync(
    'npm',
    ['pack', installer, '--pack-destination', out, '--json', '--ignore-scripts', '--workspaces=false'],
    {
      encoding: 'utf8',
    },
  ),
);
renameSync(`${out}${filename}`, `${out}cairn-mcp-installer.tgz`);
console.log(`pack-installer: dist/install/cairn-mcp-installer.tgz (from ${filename})`);

// Bundles the installer into ONE file with no runtime dependencies, so `npx <tarball>` installs nothing else.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { pluginFilesModule } from './embed-plugin.mjs';

const root = new URL('..', import.meta.url).pathname;
const outfile = `${root}dist/cairn-mcp-installer.js`;
mkdirSync(`${root}dist`, { recursive: true });
// The plugin's files ride inside the bundle: automatic mode writes them where no checkout exists.
writeFileSync(`${root}src/automatic/plugin-files.generated.ts`, pluginFilesModule());
await build({
  entryPoints: [`${root}src/bin.ts`],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // Old enough that an outdated Node still parses the file and prints the version message.
  target: 'node18',
  // jsonc-parser's "main" is UMD with dynamic requires esbuild cannot follow; its "module" build is plain ESM.
  mainFields: ['module', 'main'],
  // Workspace packages (@cairn/contract) are bundled from their sources, never from a stale build.
  conditions: ['source'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
// The Claude Desktop extension builder, for the server's GET /install/cairn-claude-desktop.mcpb (one file, no
// runtime dependencies, the same code as `--bundle`). Not in the npm tarball: the CLI bundle above has its own copy.
await build({
  entryPoints: [`${root}src/desktop-bundle/index.ts`],
  outfile: `${root}dist/desktop-bundle.js`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  legalComments: 'none',
  logLevel: 'warning',
});

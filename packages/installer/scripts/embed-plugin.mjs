// Writes src/automatic/plugin-files.generated.ts: the plugin's skills, Kiro steering and capture script as
// strings, so the one-file installer can write them on machines that have no copy of this repository.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const plugin = new URL('../../../plugins/cairn/', import.meta.url).pathname;
const marketplace = new URL('../../../.claude-plugin/marketplace.json', import.meta.url).pathname;
const out = new URL('../src/automatic/plugin-files.generated.ts', import.meta.url).pathname;

/** The embedded files, by path inside plugins/cairn/, in a stable order. */
export function pluginFileNames() {
  const skills = readdirSync(join(plugin, 'skills'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `skills/${d.name}/SKILL.md`);
  return [
    ...skills.sort(),
    'steering/cairn.md',
    'hooks/cairn-capture.js',
    'hooks/hooks.json',
    '.claude-plugin/plugin.json',
  ];
}

/** The generated module's text. */
export function pluginFilesModule() {
  const entries = pluginFileNames().map(
    (name) => `  ${JSON.stringify(name)}: ${JSON.stringify(readFileSync(join(plugin, name), 'utf8'))},`,
  );
  return [
    `// Generated from ${relative(new URL('../../../', import.meta.url).pathname, plugin)} by packages/installer/scripts/embed-plugin.mjs (run by \`npm run build -w cairn-mcp-installer\`). Do not edit.`,
    '',
    '/** The plugin files automatic mode writes, by path inside plugins/cairn/. */',
    'export const PLUGIN_FILES: Readonly<Record<string, string>> = {',
    ...entries,
    '};',
    '',
    "/** The repository's `.claude-plugin/marketplace.json`: the marketplace automatic mode writes beside the plugin when no other is given. */",
    `export const MARKETPLACE_JSON = ${JSON.stringify(readFileSync(marketplace, 'utf8'))};`,
    '',
  ].join('\n');
}

if (process.argv[1] === new URL(import.meta.url).pathname) writeFileSync(out, pluginFilesModule());

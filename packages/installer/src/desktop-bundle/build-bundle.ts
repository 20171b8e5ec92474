import { strToU8, type Zippable, zipSync } from 'fflate';
import { PLUGIN_FILES } from '../automatic/plugin-files.generated.js';
import { INSTALLER_VERSION } from '../cli/help.js';
import { type BundleSkills, bundleMcpUrl, desktopBundleManifest } from './manifest.js';

/** The file name the bundle is offered under, by the server and the installer. */
export const DESKTOP_BUNDLE_FILE = 'cairn-claude-desktop.mcpb';

// A fixed time, so the same Cairn address always gives the same bytes (and the same ETag).
const MTIME = new Date('2026-01-01T00:00:00Z');

/** The plugin's skills (plugins/cairn/skills/<name>/SKILL.md), as they sit in the bundle. */
export function pluginSkills(): BundleSkills {
  return Object.fromEntries(Object.entries(PLUGIN_FILES).filter(([path]) => path.startsWith('skills/')));
}

/** The Claude Desktop extension (`.mcpb`, a zip) for the Cairn at this address; it holds no key. */
export function buildDesktopBundle(baseOrMcpUrl: string, skills: BundleSkills = pluginSkills()): Uint8Array {
  const manifest = desktopBundleManifest(baseOrMcpUrl, INSTALLER_VERSION, skills);
  const files: Zippable = {
    'manifest.json': strToU8(`${JSON.stringify(manifest, null, 2)}\n`),
    'README.md': strToU8(bundleReadme(bundleMcpUrl(baseOrMcpUrl))),
  };
  for (const [path, text] of Object.entries(skills)) files[path] = strToU8(text);
  return zipSync(files, { level: 9, mtime: MTIME });
}

function bundleReadme(mcpUrl: string): string {
  return [
    '# Cairn for Claude Desktop',
    '',
    `This extension runs \`npx -y mcp-remote@0.1.38 ${mcpUrl} …\`, the bridge that connects Claude Desktop to Cairn.`,
    'Claude Desktop asks for your Cairn API key when you install it and keeps it as a secret; this bundle holds no key.',
    '',
    'Remove it in Claude Desktop: Settings > Extensions.',
    '',
    "`skills/` holds the text of Cairn's skills. Claude Desktop does not load skills from an extension;",
    "a condensed form of the same guidance reaches Claude through the Cairn server's MCP instructions.",
    '',
  ].join('\n');
}

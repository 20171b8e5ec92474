import { join } from 'node:path';
import type { AutomaticPaths } from '@cairn/clients';
import type { DesiredValue } from './json-values.js';
import type { DesiredFile } from './owned-files.js';
import { MARKETPLACE_JSON, PLUGIN_FILES } from './plugin-files.generated.js';

/** What automatic mode wants on disk for one client: whole files it owns, and values inside other files. */
export interface AutomaticPlan {
  files: DesiredFile[];
  values: DesiredValue[];
  /** Lines for the user after it is set up: how to start using it. */
  notes: string[];
  /** Files left alone and why (e.g. an agent config that does not parse). */
  skipped: string[];
}

/** A file from the plugin, as embedded in the installer. */
export function pluginFile(name: string): string {
  const text = PLUGIN_FILES[name];
  if (text === undefined) throw new Error(`${name} is not embedded: run npm run build -w cairn-mcp-installer`);
  return text;
}

/** `~/.cairn/capture.json`, the one place the capture hooks read the URL and key from (mode 0600). */
export function captureConfigFile(paths: AutomaticPaths, baseUrl: string, apiKey: string): DesiredFile {
  return { path: paths.captureConfig, content: `${JSON.stringify({ url: baseUrl, apiKey }, null, 2)}\n`, mode: 0o600 };
}

/** The local copy of the capture script that hooks outside Claude Code's plugin run. */
export function captureScriptFile(paths: AutomaticPaths): DesiredFile {
  return { path: paths.captureScript, content: pluginFile('hooks/cairn-capture.js'), mode: 0o755 };
}

/** Every skill of the plugin as `<dir>/<skill>/SKILL.md`. */
export function skillFiles(dir: string): DesiredFile[] {
  return Object.keys(PLUGIN_FILES)
    .filter((name) => /^skills\/[^/]+\/SKILL\.md$/.test(name))
    .map((name) => ({ path: join(dir, name.slice('skills/'.length)), content: pluginFile(name), mode: 0o644 }));
}

/**
 * The Cairn plugin marketplace as a folder: its marketplace file and the plugin beside it, from the copy
 * this installer carries. A Cairn serves the installer built with its own plugin, so the skills and hooks
 * match that server without a git URL to point at.
 */
export function bundledMarketplaceFiles(dir: string): DesiredFile[] {
  const source = (JSON.parse(MARKETPLACE_JSON) as { plugins: Array<{ source: string }> }).plugins[0]!.source;
  const pluginDir = join(dir, source);
  const plugin = Object.keys(PLUGIN_FILES)
    .filter((name) => !name.startsWith('steering/'))
    .map((name) => ({
      path: join(pluginDir, name),
      content: pluginFile(name),
      mode: name.endsWith('.js') ? 0o755 : 0o644,
    }));
  return [{ path: join(dir, '.claude-plugin', 'marketplace.json'), content: MARKETPLACE_JSON, mode: 0o644 }, ...plugin];
}

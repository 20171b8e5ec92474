import { type AutomaticPaths, MARKETPLACE_NAME, type MarketplaceSource, PLUGIN_ID } from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';
import { parseJsonConfig } from '../files/json-edit.js';
import { readConfig } from '../files/write-config.js';
import type { DesiredValue } from './json-values.js';
import type { Manifest } from './manifest.js';
import { type AutomaticPlan, captureConfigFile } from './plan.js';

const ENTRY = ['extraKnownMarketplaces', MARKETPLACE_NAME];

/** How the plugin reaches Claude Code: through the `claude` CLI (which declares the marketplace itself), or by writing its settings. */
export interface ClaudePluginRoute {
  viaCli: boolean;
  /** The marketplace to declare when writing settings; absent when one is declared already. */
  source?: MarketplaceSource;
  /** Through the CLI: what `claude plugin marketplace add` is given; absent when Claude Code knows the marketplace already. */
  cliSource?: string;
  /** The marketplace is the installer's own copy (~/.cairn/claude-marketplace), written before the plugin is added. */
  bundled: boolean;
  autoUpdate: boolean;
}

/**
 * Claude Code: the capture config the plugin's hooks read, and — without the CLI — the settings that
 * declare the marketplace and enable `cairn@cairn`. With `autoUpdate`, `"autoUpdate": true` joins the
 * marketplace entry beside its `source`, never instead of it.
 */
export function claudeCodePlan(
  paths: AutomaticPaths,
  manifest: Manifest,
  baseUrl: string,
  apiKey: string,
  route: ClaudePluginRoute,
): AutomaticPlan {
  const plan: AutomaticPlan = {
    files: [captureConfigFile(paths, baseUrl, apiKey)],
    values: [],
    notes: ['Start a new Claude Code session (or run /reload-plugins) to load the cairn plugin.'],
    skipped: [],
  };
  const path = paths.claudeSettings;
  const settings = parseJsonConfig(path, readConfig(path) ?? '', false);
  const existing = (settings.extraKnownMarketplaces as Record<string, unknown> | undefined)?.[MARKETPLACE_NAME];
  const owns = (keyPath: string[]) =>
    manifest.values.some(
      (v) => v.client === 'claude-code' && v.path === path && v.keyPath.join('.') === keyPath.join('.'),
    );
  if (!route.viaCli && route.source && (existing === undefined || owns(ENTRY))) {
    plan.values.push({
      path,
      keyPath: ENTRY,
      value: { source: route.source, ...(route.autoUpdate && { autoUpdate: true }) },
      arrayItem: false,
    });
  } else if (!route.viaCli && route.source && (!hasSource(existing) || owns([...ENTRY, 'source']))) {
    // The source-less entry the README warns about (e.g. only {"autoUpdate": true}): the source goes back beside its other keys.
    if (!hasSource(existing))
      plan.notes.unshift(
        `Repaired the "${MARKETPLACE_NAME}" entry under extraKnownMarketplaces in ${path}: it had no source; its other keys are kept.`,
      );
    plan.values.push({ path, keyPath: [...ENTRY, 'source'], value: route.source, arrayItem: false });
    if (route.autoUpdate) plan.values.push({ path, keyPath: [...ENTRY, 'autoUpdate'], value: true, arrayItem: false });
  } else {
    if (
      !route.viaCli &&
      route.source &&
      JSON.stringify((existing as { source?: unknown }).source) !== JSON.stringify(route.source)
    ) {
      plan.skipped.push(
        `${path}: kept your own "${MARKETPLACE_NAME}" marketplace entry; to switch it to ${JSON.stringify(route.source)}, remove it and run again`,
      );
    }
    if (route.autoUpdate) plan.values.push(autoUpdateValue(path, settings));
  }
  if (!route.viaCli) {
    plan.values.push({ path, keyPath: ['enabledPlugins', PLUGIN_ID], value: true, arrayItem: false });
    plan.notes.unshift(
      `Claude Code fetches the marketplace and loads ${PLUGIN_ID} the next time it starts (the claude CLI was not on PATH, so ${path} was written instead).`,
    );
  }
  return plan;
}

/** `extraKnownMarketplaces.cairn.autoUpdate = true`, only where that entry has a `source` object to keep (docs/plugin.md, "Automatic updates"). */
export function autoUpdateValue(path: string, settings: Record<string, unknown>): DesiredValue {
  const entry = (settings.extraKnownMarketplaces as Record<string, unknown> | undefined)?.[MARKETPLACE_NAME] as
    | { source?: unknown }
    | undefined;
  if (entry?.source === null || typeof entry?.source !== 'object') {
    throw new InstallerError(
      `--auto-update: ${path} has no "${MARKETPLACE_NAME}" entry with a source under extraKnownMarketplaces, and an entry holding only autoUpdate would drop the source. ` +
        'Nothing was written for auto-update. Add the marketplace first (--marketplace <git URL or path>), or turn it on in /plugin > Marketplaces.',
    );
  }
  return { path, keyPath: [...ENTRY, 'autoUpdate'], value: true, arrayItem: false };
}

/** Whether a marketplace entry carries the `source` object Claude Code needs to find the marketplace. */
export function hasSource(entry: unknown): boolean {
  const source = (entry as { source?: unknown } | null | undefined)?.source;
  return source !== null && typeof source === 'object';
}

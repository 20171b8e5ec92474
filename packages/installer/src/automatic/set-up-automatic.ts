import { chmodSync, mkdirSync } from 'node:fs';
import {
  AUTOMATIC,
  type AutomaticPaths,
  automaticPaths,
  type ClientInfo,
  MARKETPLACE_NAME,
  type MarketplaceSource,
  marketplaceSource,
} from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';
import { parseJsonConfig } from '../files/json-edit.js';
import { readConfig } from '../files/write-config.js';
import type { InstallRequest, Machine } from '../install/context.js';
import { applyPlan } from './apply-plan.js';
import { type ClaudePluginRoute, claudeCodePlan, hasSource } from './claude-code-plan.js';
import { hasCairnMarketplace, installClaudePlugin } from './claude-plugin.js';
import { codexPlan } from './codex-plan.js';
import { geminiPlan } from './gemini-plan.js';
import { kiroPlan } from './kiro-plan.js';
import { hasClient, type Manifest, readManifest, saveManifest } from './manifest.js';
import { placeFile } from './owned-files.js';
import { type AutomaticPlan, bundledMarketplaceFiles } from './plan.js';
import { reportOutcome } from './report.js';

/** Automatic mode failed part-way, after the MCP entry was written: what failed, and which commands had run. */
export class AutomaticIncomplete extends Error {
  constructor(
    readonly reason: string,
    readonly ran: string[],
    readonly adds: string[],
  ) {
    super(reason);
    this.name = 'AutomaticIncomplete';
  }
}

/** Automatic mode for one install: decided and checked before anything is written, applied after the MCP entry. */
export interface AutomaticRun {
  apply: (mcpUrl: string, apiKey: string) => Promise<void>;
}

/** Whether this install is automatic (kiro always; claude-code, codex and gemini-cli with --auto, or when installed so before), and its checks; undefined when it is not. */
export async function prepareAutomatic(
  client: ClientInfo,
  request: InstallRequest,
  machine: Machine,
): Promise<AutomaticRun | undefined> {
  const info = AUTOMATIC[client.id];
  const paths = automaticPaths(machine);
  const manifest = readManifest(paths.manifest);
  if (!info || !(info.mode === 'default' || request.auto || request.autoUpdate || hasClient(manifest, client.id)))
    return undefined;
  if (request.oauth)
    throw new InstallerError(
      `Automatic mode sends captured turns with an API key: it cannot be set up with --oauth. Drop --oauth (and --auto) for an OAuth entry without it.`,
      2,
    );
  const route = client.id === 'claude-code' ? await claudeRoute(request, machine, paths, manifest) : undefined;
  return {
    apply: async (mcpUrl, apiKey) => {
      if (request.dryRun) {
        machine.out(`Dry run: automatic mode would also set up:\n${info.adds.map((line) => `  - ${line}`).join('\n')}`);
        return;
      }
      if (!request.yes && (await machine.confirm(`Also set up automatic mode (${info.adds.join('; ')})?`)) === false) {
        machine.out('Automatic mode not set up: the agent uses Cairn only when asked.');
        return;
      }
      mkdirSync(paths.cairnDir, { recursive: true, mode: 0o700 });
      if (machine.platform !== 'win32') chmodSync(paths.cairnDir, 0o700);
      const baseUrl = mcpUrl.replace(/\/mcp$/, '');
      const ran: string[] = [];
      try {
        // The marketplace folder must be on disk before Claude Code is told about it.
        const bundled = route?.bundled ? bundledMarketplaceFiles(paths.claudeMarketplace) : [];
        for (const file of bundled) placeFile(manifest, client.id, file, machine.platform);
        if (route?.viaCli) await installClaudePlugin(machine, manifest, route.cliSource, ran);
        const plan = planFor(client, paths, manifest, baseUrl, apiKey, route);
        plan.files.push(...bundled);
        reportOutcome(machine, applyPlan(manifest, client.id, plan, machine.platform), plan);
      } catch (error) {
        throw new AutomaticIncomplete(
          error instanceof InstallerError ? error.message : (error as Error).message,
          ran,
          info.adds,
        );
      } finally {
        saveManifest(paths.manifest, manifest);
      }
    },
  };
}

function planFor(
  client: ClientInfo,
  paths: AutomaticPaths,
  manifest: Manifest,
  baseUrl: string,
  apiKey: string,
  route: ClaudePluginRoute | undefined,
): AutomaticPlan {
  if (client.id === 'kiro') return kiroPlan(paths, baseUrl, apiKey);
  if (client.id === 'codex') return codexPlan(paths, baseUrl, apiKey);
  if (client.id === 'gemini-cli') return geminiPlan(paths, baseUrl, apiKey);
  return claudeCodePlan(paths, manifest, baseUrl, apiKey, route!);
}

function recordedSource(manifest: Manifest): string | undefined {
  return manifest.cli.find((c) => c.client === 'claude-code' && c.step === 'marketplace-add')?.source;
}

/**
 * Where the marketplace comes from: --marketplace, the one recorded by an earlier run, one Claude Code
 * already knows, or else the copy this installer carries, written to ~/.cairn/claude-marketplace.
 * Refuses (exit 2, nothing written) only a declared entry that lost its source.
 */
async function claudeRoute(
  request: InstallRequest,
  machine: Machine,
  paths: AutomaticPaths,
  manifest: Manifest,
): Promise<ClaudePluginRoute> {
  const ours = manifest.values.filter((v) => v.client === 'claude-code' && v.path === paths.claudeSettings);
  const autoUpdate =
    request.autoUpdate ||
    ours.some(
      (v) => v.keyPath.at(-1) === 'autoUpdate' || (v.value as { autoUpdate?: unknown } | null)?.autoUpdate === true,
    );
  const bundledDir = paths.claudeMarketplace;
  if (machine.which('claude')) {
    const known = request.marketplace ?? recordedSource(manifest);
    const cliSource = known ?? ((await hasCairnMarketplace(machine)) ? undefined : bundledDir);
    return { viaCli: true, autoUpdate, bundled: cliSource === bundledDir, ...(cliSource && { cliSource }) };
  }
  const ownEntry = ours.find((v) => v.keyPath.at(-1) === MARKETPLACE_NAME)?.value as
    | { source?: ClaudePluginRoute['source'] }
    | undefined;
  const ownSource = ours.find((v) => v.keyPath.join('.') === `extraKnownMarketplaces.${MARKETPLACE_NAME}.source`)
    ?.value as ClaudePluginRoute['source'] | undefined;
  const settings = parseJsonConfig(paths.claudeSettings, readConfig(paths.claudeSettings) ?? '', false);
  const declared = (settings.extraKnownMarketplaces as Record<string, unknown> | undefined)?.[MARKETPLACE_NAME];
  const bundledSource: MarketplaceSource = { source: 'directory', path: bundledDir };
  const source = request.marketplace
    ? marketplaceSource(request.marketplace, machine.cwd)
    : (ownEntry?.source ?? ownSource ?? (declared === undefined ? bundledSource : undefined));
  if (!source && !hasSource(declared)) {
    throw new InstallerError(
      `${paths.claudeSettings}: the "${MARKETPLACE_NAME}" entry under extraKnownMarketplaces has no source, so Claude Code cannot find the marketplace (an entry holding only autoUpdate drops it). ` +
        'Run again with --marketplace <git URL or path> to repair it (its other keys are kept), or fix it in /plugin > Marketplaces. Nothing was written.',
      2,
    );
  }
  const bundled = source?.source === 'directory' && source.path === bundledDir;
  return { viaCli: false, autoUpdate, bundled, ...(source && { source }) };
}

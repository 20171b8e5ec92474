import { claudePluginArgs, MARKETPLACE_NAME, PLUGIN_ID, shellCommand } from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';
import { runClaude } from '../install/claude-cli.js';
import type { Machine } from '../install/context.js';
import type { Manifest } from './manifest.js';

/** The JSON list a `claude plugin … --json` command prints; empty when it prints none. */
async function listJson(machine: Machine, args: string[]): Promise<Array<Record<string, unknown>>> {
  const result = await machine.run('claude', args);
  try {
    const parsed: unknown = JSON.parse(result.stdout);
    return Array.isArray(parsed) ? (parsed as Array<Record<string, unknown>>) : [];
  } catch {
    return [];
  }
}

/** Whether the `claude` CLI already knows the cairn marketplace. */
export async function hasCairnMarketplace(machine: Machine): Promise<boolean> {
  return (await listJson(machine, ['plugin', 'marketplace', 'list', '--json'])).some(
    (m) => m.name === MARKETPLACE_NAME,
  );
}

/**
 * Adds the marketplace (or, when it is there, updates it) and installs `cairn@cairn` (or updates it), as
 * re-running the installer does (docs/plugin.md, "Updating the plugin"). Only what it added is recorded, so uninstall never
 * removes a marketplace or plugin the user had before. Says each command as it succeeds, and adds it to `ran`.
 */
export async function installClaudePlugin(
  machine: Machine,
  manifest: Manifest,
  source: string | undefined,
  ran: string[] = [],
): Promise<string[]> {
  const run = async (args: string[]) => {
    await runClaude(machine, args, shellCommand('claude', args));
    ran.push(shellCommand('claude', args));
    machine.out(`Ran: ${shellCommand('claude', args)}`);
  };
  const added = manifest.cli.find((c) => c.client === 'claude-code' && c.step === 'marketplace-add');
  if (!(await hasCairnMarketplace(machine))) {
    if (!source)
      throw new InstallerError('No Cairn plugin marketplace to add: run again with --marketplace <git URL or path>.');
    await run(claudePluginArgs('marketplace-add', source));
    manifest.cli = [
      ...manifest.cli.filter((c) => c !== added),
      { client: 'claude-code', step: 'marketplace-add', ...(source && { source }) },
    ];
  } else if (added && source && added.source !== source) {
    await run(claudePluginArgs('marketplace-remove'));
    await run(claudePluginArgs('marketplace-add', source));
    manifest.cli = [
      ...manifest.cli.filter((c) => c !== added),
      { client: 'claude-code', step: 'marketplace-add', source },
    ];
  } else {
    await run(claudePluginArgs('marketplace-update'));
  }
  const plugins = await listJson(machine, ['plugin', 'list', '--json']);
  if (!plugins.some((p) => p.id === PLUGIN_ID)) {
    await run(claudePluginArgs('install'));
    if (!manifest.cli.some((c) => c.client === 'claude-code' && c.step === 'install'))
      manifest.cli = [...manifest.cli, { client: 'claude-code', step: 'install' }];
  } else {
    await run(claudePluginArgs('update'));
  }
  return ran;
}

/** Undoes what installClaudePlugin recorded: the plugin, then the marketplace. Without the CLI, returns the commands for the user to run. */
export async function removeClaudePlugin(
  machine: Machine,
  manifest: Manifest,
): Promise<{ ran: string[]; left: string[] }> {
  const steps = manifest.cli.filter((c) => c.client === 'claude-code');
  manifest.cli = manifest.cli.filter((c) => c.client !== 'claude-code');
  const commands = [
    ...(steps.some((s) => s.step === 'install') ? [claudePluginArgs('uninstall')] : []),
    ...(steps.some((s) => s.step === 'marketplace-add') ? [claudePluginArgs('marketplace-remove')] : []),
  ];
  if (!machine.which('claude')) return { ran: [], left: commands.map((args) => shellCommand('claude', args)) };
  const ran: string[] = [];
  for (const args of commands) {
    await runClaude(machine, args, shellCommand('claude', args));
    ran.push(shellCommand('claude', args));
  }
  return { ran, left: [] };
}

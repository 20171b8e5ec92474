import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { automaticPaths, type ClientInfo } from '@cairn/clients';
import type { InstallRequest, Machine } from '../install/context.js';
import { applyPlan } from './apply-plan.js';
import { removeClaudePlugin } from './claude-plugin.js';
import { hasClient, readManifest, saveManifest } from './manifest.js';

/** Removes exactly what the manifest lists for the client — never another tool's hooks or files — and says what stays. */
export async function removeAutomatic(client: ClientInfo, request: InstallRequest, machine: Machine): Promise<void> {
  const paths = automaticPaths(machine);
  const manifest = readManifest(paths.manifest);
  if (!hasClient(manifest, client.id)) return;
  if (request.dryRun) {
    const files = manifest.files.filter((f) => f.clients.includes(client.id)).map((f) => f.path);
    const values = [...new Set(manifest.values.filter((v) => v.client === client.id).map((v) => v.path))];
    machine.out(
      `Dry run: automatic mode would remove ${[...files, ...values.map((p) => `Cairn's entries in ${p}`)].join(', ')}.`,
    );
    return;
  }
  let outcome: ReturnType<typeof applyPlan>;
  let cli = { ran: [] as string[], left: [] as string[] };
  try {
    // The plugin goes first, while the marketplace folder it came from (when the installer wrote it) is still there.
    if (client.id === 'claude-code') cli = await removeClaudePlugin(machine, manifest);
    outcome = applyPlan(manifest, client.id, { files: [], values: [] }, machine.platform);
  } finally {
    saveManifest(paths.manifest, manifest);
  }
  for (const command of cli.ran) machine.out(`Ran: ${command}`);
  if (outcome.removed.length > 0)
    machine.out(`Removed what automatic mode added:\n${outcome.removed.map((p) => `  ${p}`).join('\n')}`);
  for (const what of outcome.keptEdited) machine.out(`Kept ${what}: delete it yourself if you no longer want it.`);
  for (const what of outcome.stillUsed) machine.out(`Kept ${what}.`);
  if (cli.left.length > 0)
    machine.out(
      `The claude CLI is not on PATH; to remove the plugin run:\n${cli.left.map((c) => `  ${c}`).join('\n')}`,
    );
  // Which rules each agent session was given (ids only): of no use once no hook reads a configuration.
  const given = join(paths.cairnDir, 'guidance-given.json');
  if (!existsSync(paths.captureConfig) && existsSync(given)) {
    rmSync(given, { force: true });
    machine.out(`Removed ${given} (the guidance hooks' record of the rules each session was given).`);
  }
  const capture = ['capture.log', 'capture-spool.jsonl']
    .map((f) => join(paths.cairnDir, f))
    .filter((f) => existsSync(f));
  if (capture.length > 0)
    machine.out(
      `Stays: ${capture.join(' and ')} (written by the capture hooks, not by the installer; the spool holds turns not yet sent).`,
    );
}

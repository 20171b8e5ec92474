import { CLIENTS } from '@cairn/clients';
import { removeAutomatic } from '../automatic/remove-automatic.js';
import { unifiedDiff } from '../files/unified-diff.js';
import { writeConfig } from '../files/write-config.js';
import { claudeCliUninstall } from './claude-cli.js';
import type { InstallRequest, Machine } from './context.js';
import { editEntry } from './edit-entry.js';
import { inspectConfig } from './inspect-config.js';

/** Removes only the named entry, then what automatic mode added (as its manifest lists it), and says what stays; returns the exit code. */
export async function runUninstall(request: InstallRequest, machine: Machine): Promise<number> {
  const client = CLIENTS[request.client];
  const config = inspectConfig(client, request.serverName, machine);
  if (!config.existing) {
    const others = Object.keys(config.entries);
    machine.out(`No entry "${request.serverName}" in ${config.path}: nothing to remove.${others.length ? ` Entries there: ${others.join(', ')} (use --server-name).` : ''}`);
    await removeAutomatic(client, request, machine);
    return 0;
  }
  if (client.id === 'claude-code' && machine.which('claude')) {
    if (request.dryRun) machine.out(`Dry run: would run claude mcp remove ${request.serverName} -s user`);
    else machine.out(`Ran: ${await claudeCliUninstall(machine, request.serverName)}`);
  } else {
    const after = editEntry(client, config, request.serverName, undefined);
    if (request.dryRun) {
      machine.out(`Dry run: nothing written. The change to ${config.target}:`);
      machine.out(unifiedDiff(config.target, config.text, after).replace(/(Bearer |cairn_tkn_)[A-Za-z0-9]+/g, '$1…').trimEnd());
      await removeAutomatic(client, request, machine);
      return 0;
    }
    const written = writeConfig(config.path, after, { secret: false });
    machine.out(`Removed "${request.serverName}" from ${written.target}.${written.backup ? ` Backup: ${written.backup}` : ''}`);
  }
  const kept = Object.keys(config.entries).filter((name) => name !== request.serverName);
  if (kept.length > 0) machine.out(`Kept the other entries: ${kept.join(', ')}.`);
  await removeAutomatic(client, request, machine);
  machine.out(client.staysAfterUninstall);
  machine.out(`Restart ${client.displayName} so it stops using the entry.`);
  return 0;
}

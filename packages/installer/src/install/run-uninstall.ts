import { rmSync } from 'node:fs';
import { CLIENTS, type ClientInfo, CODEX_TOKEN_ENV, mcpUrlFor } from '@cairn/clients';
import { removeAutomatic } from '../automatic/remove-automatic.js';
import { unifiedDiff } from '../files/unified-diff.js';
import { removeBackups, removeEmptyDirs, writeConfig } from '../files/write-config.js';
import { claudeCliUninstall } from './claude-cli.js';
import type { InstallRequest, Machine } from './context.js';
import { forgetCreated, tidyAfterRemoval } from './created-configs.js';
import { forgetCreatedKey, wasCreatedHere } from './created-keys.js';
import { editBlock } from './edit-block.js';
import { inspectConfig } from './inspect-config.js';
import { maskKey } from './resolve-key.js';
import { retireKey } from './retire-key.js';

/**
 * Removes only the named entry, then what automatic mode added (as its manifest lists it), and says
 * what stays. What the installer created to hold the entry (the file, its container, its folders)
 * goes too once nothing else is in it, and so do its backups of the file, which hold the key.
 */
export async function runUninstall(request: InstallRequest, machine: Machine): Promise<number> {
  const client = CLIENTS[request.client];
  const config = inspectConfig(client, request.serverName, machine);
  if (!config.existing) {
    const others = Object.keys(config.entries);
    machine.out(
      `No entry "${request.serverName}" in ${config.path}: nothing to remove.${others.length ? ` Entries there: ${others.join(', ')} (use --server-name).` : ''}`,
    );
    await removeAutomatic(client, request, machine);
    return 0;
  }
  const kept = Object.keys(config.entries).filter((name) => name !== request.serverName);
  const held = config.existing.info;
  const codexEnv =
    client.id === 'codex' &&
    typeof (config.existing.value as { bearer_token_env_var?: unknown }).bearer_token_env_var === 'string';
  const key = held?.apiKey ?? (codexEnv ? machine.env[CODEX_TOKEN_ENV] : undefined);
  const retire = async () => {
    if (key && held?.url) await retireBlockKey(machine, client, request, key, held.url);
  };
  let createdDirs: string[] = [];
  if (client.id === 'claude-code' && machine.which('claude')) {
    if (request.dryRun) machine.out(`Dry run: would run claude mcp remove ${request.serverName} -s user`);
    else machine.out(`Ran: ${await claudeCliUninstall(machine, request.serverName)}`);
  } else {
    const tidy = tidyAfterRemoval(machine, client, config, editBlock(client, config, request.serverName, undefined));
    if (request.dryRun) {
      machine.out(`Dry run: nothing written. The change to ${config.target}:`);
      machine.out(
        unifiedDiff(config.target, config.text, tidy.deleteFile ? '' : tidy.text)
          .replace(/(Bearer |cairn_tkn_)[A-Za-z0-9]+/g, '$1…')
          .trimEnd(),
      );
      await removeAutomatic(client, request, machine);
      await retire();
      return 0;
    }
    if (tidy.deleteFile) {
      rmSync(config.target, { force: true });
      if (config.target !== config.path) rmSync(config.path, { force: true });
      machine.out(
        `Removed "${request.serverName}" and ${config.target}: the installer had created that file and nothing else is in it.`,
      );
      createdDirs = tidy.record?.createdDirs ?? [];
    } else {
      const written = writeConfig(config.path, tidy.text, { secret: false, backup: false });
      machine.out(`Removed "${request.serverName}" from ${written.target}.`);
    }
    const backups = removeBackups(config.path);
    if (backups.length > 0) machine.out(`Removed the installer's backup ${backups.join(', ')} (it held the key).`);
    if (tidy.record && kept.length === 0) forgetCreated(machine, tidy.record);
  }
  if (kept.length > 0) machine.out(`Kept the other entries: ${kept.join(', ')}.`);
  await removeAutomatic(client, request, machine);
  await retire();
  const dirs = removeEmptyDirs(createdDirs);
  if (dirs.length > 0) machine.out(`Removed the folders it had created, now empty: ${dirs.join(', ')}.`);
  machine.out(client.staysAfterUninstall(machine.platform));
  machine.out(`Restart ${client.displayName} so it stops using the entry.`);
  return 0;
}

/**
 * The removed entry's key: revoked when the installer made it (from a setup code) and nothing else on
 * this machine uses it, as a reinstall retires the key it replaces; a key the user gave is theirs, and
 * they are told it stays active.
 */
async function retireBlockKey(
  machine: Machine,
  client: ClientInfo,
  request: InstallRequest,
  key: string,
  url: string,
): Promise<void> {
  const masked = maskKey(key);
  if (!wasCreatedHere(machine, client.id, request.serverName, key)) {
    machine.out(
      `The entry's key (${masked}) stays active: the installer did not create it (it came from --api-key, CAIRN_API_KEY or an older installer). If nothing else uses it, revoke it in the portal (Settings > API Keys).`,
    );
    return;
  }
  if (request.dryRun) {
    machine.out(
      `Dry run: would revoke the key the installer created for the entry (${masked}), unless another config on this machine uses it.`,
    );
    return;
  }
  await retireKey(machine, client, mcpUrlFor(url), key, 'the key the installer created for the entry');
  forgetCreatedKey(machine, client.id, request.serverName);
}

import { claudeMcpAddArgs, claudeMcpRemoveArgs, shellCommand } from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';
import type { Machine } from './context.js';

/** Runs `claude …`; a failure becomes an InstallerError carrying the CLI's own words. */
export async function runClaude(machine: Machine, args: string[], display: string): Promise<void> {
  const result = await machine.run('claude', args);
  if (result.code !== 0)
    throw new InstallerError(`\`${display}\` failed (exit ${result.code}): ${(result.stderr || result.stdout).trim()}`);
}

/** Replaces the user-scope entry through the `claude` CLI: remove (when present), then add. */
export async function claudeCliInstall(
  machine: Machine,
  serverName: string,
  mcpUrl: string,
  apiKey: string | undefined,
  replace: boolean,
  mask: (s: string) => string,
): Promise<string[]> {
  const commands: string[] = [];
  if (replace) {
    const args = claudeMcpRemoveArgs(serverName);
    await runClaude(machine, args, shellCommand('claude', args));
    commands.push(shellCommand('claude', args));
  }
  const args = claudeMcpAddArgs(serverName, mcpUrl, apiKey);
  const display = mask(shellCommand('claude', args));
  await runClaude(machine, args, display);
  commands.push(display);
  return commands;
}

/** Removes the user-scope entry through the `claude` CLI. */
export async function claudeCliUninstall(machine: Machine, serverName: string): Promise<string> {
  const args = claudeMcpRemoveArgs(serverName);
  await runClaude(machine, args, shellCommand('claude', args));
  return shellCommand('claude', args);
}

import { existsSync, readFileSync } from 'node:fs';
import {
  automaticPaths,
  CLIENT_IDS,
  type ClientInfo,
  CODEX_TOKEN_ENV,
  configPaths,
  INSTALLER_USER_AGENT,
} from '@cairn/clients';
import { resolveConfigTarget } from '../files/write-config.js';
import type { Machine } from './context.js';
import { maskKey } from './resolve-key.js';

/** How long revoking the replaced key may take before the installer gives up and says so. */
const REVOKE_TIMEOUT_MS = 5_000;

/**
 * The entry now holds a new key; the one it replaced would otherwise stay active, unseen. Once the new
 * key has connected, the old one revokes itself (`DELETE /api/v1/keys/self`, authenticated by that
 * very key) at the server it came from (`oldMcpUrl`, the address the entry held), never at the one
 * --url names now, unless another config on this machine still uses it. Every outcome is said.
 */
export async function retireReplacedKey(
  machine: Machine,
  client: ClientInfo,
  oldMcpUrl: string | undefined,
  oldKey: string,
  newKeyWorks: boolean,
): Promise<void> {
  if (!newKeyWorks) {
    machine.out(`The key it replaced (${maskKey(oldKey)}) is still active: once the new one works, ${PORTAL}.`);
    return;
  }
  if (!oldMcpUrl) {
    machine.out(
      `The key it replaced (${maskKey(oldKey)}) is still active: the entry named no server to revoke it at. ${capital(PORTAL)} of the Cairn it came from.`,
    );
    return;
  }
  await retireKey(machine, client, oldMcpUrl, oldKey, 'the key it replaced');
}

const PORTAL = 'revoke it in the portal (Settings > API Keys)';

/**
 * Revokes `key` (described to the user as `what`) through `DELETE /api/v1/keys/self`, authenticated by
 * that very key, unless another config on this machine still uses it; says every outcome. True when
 * the key is no longer active.
 */
export async function retireKey(
  machine: Machine,
  client: ClientInfo,
  mcpUrl: string,
  key: string,
  what: string,
): Promise<boolean> {
  const old = maskKey(key);
  const oldKey = key;
  const portal = PORTAL;
  const users = stillUsedBy(machine, client, oldKey);
  if (users.length > 0) {
    machine.out(
      `${capital(what)} (${old}) stays active: ${users.join(', ')} still ${users.length === 1 ? 'uses' : 'use'} it. When nothing needs it, ${portal}.`,
    );
    return false;
  }
  const url = `${mcpUrl.replace(/\/mcp$/, '')}/api/v1/keys/self`;
  let status: number;
  try {
    const response = await machine.fetch(url, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${oldKey}`, 'User-Agent': INSTALLER_USER_AGENT, Accept: 'application/json' },
      signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    machine.out(
      `Could not revoke ${what} (${old}) at ${new URL(url).host}: ${(error as Error).message}. It is still active: ${portal} of that Cairn.`,
    );
    return false;
  }
  const server = new URL(url).host;
  if (status === 200) machine.out(`Revoked ${what} (${old}) at ${server}: no other config on this machine used it.`);
  else if (status === 401)
    machine.out(`${capital(what)} (${old}) was already revoked: ${server}, where it was made, no longer accepts it.`);
  else
    machine.out(
      `Could not revoke ${what} (${old}) at ${server}: it answered HTTP ${status}${status === 404 ? ' (a Cairn older than this installer)' : status === 403 ? ' (a read-only key cannot revoke itself)' : ''}. It may still be active: ${portal} of that Cairn.`,
    );
  return status === 200 || status === 401;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The other places on this machine that hold the key: every client's config (but this entry's own file) and the capture config. */
function stillUsedBy(machine: Machine, client: ClientInfo, key: string): string[] {
  const files = new Set<string>();
  for (const id of CLIENT_IDS) for (const path of configPaths(id, machine)) files.add(resolveConfigTarget(path));
  files.add(automaticPaths(machine).captureConfig);
  const users = [...files].filter((file) => existsSync(file) && readFileSync(file, 'utf8').includes(key));
  if (client.id !== 'codex' && machine.env[CODEX_TOKEN_ENV] === key) users.push(`Codex (through ${CODEX_TOKEN_ENV})`);
  return users;
}

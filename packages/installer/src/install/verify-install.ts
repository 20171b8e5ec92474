import { type ClientInfo, CODEX_TOKEN_ENV, type ServerBlock } from '@cairn/clients';
import { CHECK_TIMEOUT_MS, checkConnection } from '../check/check-connection.js';
import { clientRequest } from '../check/client-request.js';
import { installerCommand } from '../cli/self-command.js';
import type { Machine } from './context.js';
import { inspectConfig } from './inspect-config.js';

/** Exit code when the entry is written but the check could not connect: distinct from 1 (nothing written) and 2 (usage). */
export const CHECK_FAILED_EXIT = 3;

/**
 * Connects exactly as the client will: the entry read back from its file (what the client reads,
 * also after `claude mcp add`), its URL and headers. Prints "Connected as …" or the diagnosis; returns the exit code.
 */
export async function verifyInstall(
  client: ClientInfo,
  serverName: string,
  written: ServerBlock,
  apiKey: string | undefined,
  machine: Machine,
  timeoutMs = CHECK_TIMEOUT_MS,
  tokenReady = true,
): Promise<number> {
  let entry: unknown = written;
  let path: string | undefined;
  try {
    const config = inspectConfig(client, serverName, machine);
    path = config.path;
    entry = config.existing?.value ?? written;
  } catch {
    // The file is the client's to read; if it no longer parses, check the entry as written.
  }
  const request = clientRequest(entry, apiKey);
  if (request.kind === 'oauth') {
    machine.out(
      `Not checked: with OAuth, ${client.displayName} opens a browser for you to sign in the first time it connects.`,
    );
    return 0;
  }
  const result =
    request.kind === 'unusable'
      ? { ok: false as const, message: request.reason }
      : await checkConnection(request.url, request.headers, machine.fetch, timeoutMs);
  if (result.ok) {
    const packs = `${result.datapacks} ${result.datapacks === 1 ? 'datapack' : 'datapacks'}`;
    // Codex sends the key from its environment: until the variable holds it there, Codex is not connected, whatever the key is worth.
    if (!tokenReady)
      machine.out(
        `Key checked: Cairn accepts it as ${result.user} — ${packs}. Codex is not connected yet: it sends the key from ${CODEX_TOKEN_ENV}, which does not hold it in this environment. Set it as shown above, open a new terminal, then start Codex.`,
      );
    else machine.out(`Connected as ${result.user} — ${packs}`);
    return 0;
  }
  machine.out(`✘ Check failed, connecting as ${client.displayName} will: ${result.message}`);
  machine.out(
    `The entry stays written${path ? ` in ${path}` : ''}. Fix the cause and run the same command again, or run: ${installerCommand('doctor', request.kind === 'http' ? request.url : undefined)}`,
  );
  return CHECK_FAILED_EXIT;
}

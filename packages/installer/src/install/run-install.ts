import {
  CLIENTS,
  type ClientInfo,
  CODEX_TOKEN_ENV,
  claudeMcpAddArgs,
  claudeMcpRemoveArgs,
  KEY_PREFIX,
  mcpUrlFor,
  shellCommand,
  urlProblem,
} from '@cairn/clients';
import { AutomaticIncomplete, prepareAutomatic } from '../automatic/set-up-automatic.js';
import { installerCommand } from '../cli/self-command.js';
import { InstallerError } from '../files/config-error.js';
import { unifiedDiff } from '../files/unified-diff.js';
import { protectConfig, writeConfig } from '../files/write-config.js';
import { claudeCliInstall } from './claude-cli.js';
import type { InstallRequest, Machine } from './context.js';
import { rememberCreated, whatWriteCreates } from './created-configs.js';
import { forgetCreatedKey, rememberCreatedKey, wasCreatedHere } from './created-keys.js';
import { editBlock, sameValue } from './edit-block.js';
import { inspectConfig } from './inspect-config.js';
import { assertOneMethod } from './one-method.js';
import { maskKey, resolveApiKey } from './resolve-key.js';
import { retireReplacedKey } from './retire-key.js';
import { verifyInstall } from './verify-install.js';

/** Exit code when the entry is written (and checked) but automatic mode could not be finished: the report says what is in place and the command that finishes it. */
export const AUTOMATIC_INCOMPLETE_EXIT = 4;

/** Writes (or updates) the client's Cairn entry; returns the exit code. */
export async function runInstall(request: InstallRequest, machine: Machine): Promise<number> {
  const client = CLIENTS[request.client];
  const method = request.oauth ? 'oauth' : 'api-key';
  if (request.oauth && !client.installerOAuth.supported)
    throw new InstallerError(
      `${client.installerOAuth.reason}\nWithout --oauth the installer sets up ${client.displayName} with an API key.`,
      2,
    );
  const config = inspectConfig(client, request.serverName, machine);
  const existing = config.existing?.info;
  const url = request.url ?? existing?.url;
  if (!url)
    throw new InstallerError(
      '--url is required: the address of your Cairn, for example --url https://cairn.example.com',
      2,
    );
  const stored = request.url === undefined ? urlProblem(url) : undefined;
  if (stored) {
    const example = stored === 'has no scheme' ? `https://${url.replace(/\/mcp\/?$/, '')}` : 'https://<your Cairn>';
    throw new InstallerError(
      `The "${request.serverName}" entry in ${config.path} has the address ${url}, which ${stored}: run again with --url ${example} (the whole address). Nothing was written.`,
      2,
    );
  }
  const mcpUrl = mcpUrlFor(url);
  assertOneMethod(client, config, request.serverName, mcpUrl, method);
  const automatic = await prepareAutomatic(client, request, machine);
  // An older Codex table read the key from CAIRN_MCP_TOKEN: a re-run moves it into the table.
  const codexEnvForm =
    client.id === 'codex' &&
    typeof (config.existing?.value as { bearer_token_env_var?: unknown } | undefined)?.bearer_token_env_var ===
      'string';
  const codexToken = codexEnvForm ? machine.env[CODEX_TOKEN_ENV] : undefined;
  const previousKey = existing?.apiKey ?? codexToken;
  const apiKey = method === 'api-key' ? await resolveApiKey(request, machine, request.url, previousKey) : undefined;
  const mask = (text: string) => (apiKey ? text.split(apiKey).join(maskKey(apiKey)) : text);
  const entry = client.block(mcpUrl, apiKey);
  const upToDate = config.existing !== undefined && sameValue(config.existing.value, entry);
  if (config.existing && existing?.legacy)
    machine.out(
      `Found the older "${request.serverName}" entry (API_KEY header or --allow-http bridge): it is migrated to the current shape.`,
    );
  const replacedKey =
    apiKey !== undefined && previousKey?.startsWith(KEY_PREFIX) && previousKey !== apiKey ? previousKey : undefined;
  // The replaced key belongs to the server the entry pointed at, which --url may have just changed.
  const replacedKeyUrl = existing?.url && !urlProblem(existing.url) ? mcpUrlFor(existing.url) : undefined;
  const replaced = replacedKey ? { key: replacedKey, mcpUrl: replacedKeyUrl } : undefined;

  if (client.id === 'claude-code' && machine.which('claude')) {
    if (upToDate) machine.out(`Already up to date: ${config.path} (no command run).`);
    else if (request.dryRun) {
      machine.out('Dry run: would run');
      if (config.existing) machine.out(`  ${shellCommand('claude', claudeMcpRemoveArgs(request.serverName))}`);
      machine.out(`  ${mask(shellCommand('claude', claudeMcpAddArgs(request.serverName, mcpUrl, apiKey)))}`);
      await automatic?.apply(mcpUrl, apiKey!);
      return 0;
    } else {
      for (const command of await claudeCliInstall(
        machine,
        request.serverName,
        mcpUrl,
        apiKey,
        config.existing !== undefined,
        mask,
      ))
        machine.out(`Ran: ${command}`);
    }
    if (apiKey && protectConfig(config.path)) machine.out(`Set ${config.target} to mode 0600 (it holds a key).`);
    return afterWriting(client, request, machine, { mcpUrl, apiKey, entry, replaced, automatic, tokenReady: true });
  }

  const after = editBlock(client, config, request.serverName, entry, mcpUrl);
  const secret = apiKey !== undefined;
  if (request.dryRun) {
    machine.out(
      after === config.text
        ? `Dry run: no change to ${config.path}.`
        : `Dry run: nothing written. The change to ${config.target}:`,
    );
    if (after !== config.text) machine.out(mask(unifiedDiff(config.target, config.text, after)).trimEnd());
    if (replacedKey)
      machine.out(
        `Would revoke the key it replaces (${maskKey(replacedKey)})${replacedKeyUrl ? ` at ${new URL(replacedKeyUrl).host}, where it was made,` : ''} once the new one connects.`,
      );
    await automatic?.apply(mcpUrl, apiKey!);
    return 0;
  }
  const created = whatWriteCreates(config);
  if (after === config.text) {
    machine.out(`Already up to date: ${config.path}`);
    if (secret && protectConfig(config.path)) machine.out(`Set ${config.target} to mode 0600 (it holds a key).`);
  } else {
    if (!request.yes) {
      machine.out(mask(unifiedDiff(config.target, config.text, after)).trimEnd());
      if ((await machine.confirm(`Write this change to ${config.target}?`)) === false) {
        machine.out('Nothing written.');
        return 1;
      }
    }
    const written = writeConfig(config.path, after, { secret });
    const link = written.target === config.path ? '' : ` (the target of the symlink ${config.path})`;
    machine.out(
      `${config.existing ? 'Updated' : 'Added'} "${request.serverName}" in ${written.target}${link}${secret ? ', mode 0600' : ''}.`,
    );
    if (written.backup)
      machine.out(`Backup of the previous file (one is kept per file; uninstall removes it): ${written.backup}`);
  }
  if (codexEnvForm && apiKey && after !== config.text) {
    machine.out(
      `Codex now reads the key from ${config.target} (mode 0600), no longer from ${CODEX_TOKEN_ENV}: delete that variable's line from your shell profile${machine.platform === 'darwin' ? ` (and run launchctl unsetenv ${CODEX_TOKEN_ENV})` : ''}.`,
    );
  }
  return afterWriting(client, request, machine, {
    mcpUrl,
    apiKey,
    entry,
    replaced,
    automatic,
    tokenReady: true,
    created: { path: config.path, ...created },
  });
}

interface Written {
  mcpUrl: string;
  apiKey: string | undefined;
  entry: Record<string, unknown>;
  /** The key the entry held before, when this run put another one in its place, and the server it came from (unknown when the entry named none). */
  replaced: { key: string; mcpUrl: string | undefined } | undefined;
  automatic: Awaited<ReturnType<typeof prepareAutomatic>>;
  /** Codex: CAIRN_MCP_TOKEN holds the key where Codex will read it. */
  tokenReady: boolean;
  /** What writing the entry created (file, container, folders), for uninstall to take away. */
  created?: ReturnType<typeof whatWriteCreates> & { path: string };
}

/** Automatic mode, the check, and the replaced key, once the entry is written; returns the exit code. */
async function afterWriting(
  client: ClientInfo,
  request: InstallRequest,
  machine: Machine,
  w: Written,
): Promise<number> {
  let incomplete: AutomaticIncomplete | undefined;
  try {
    await w.automatic?.apply(w.mcpUrl, w.apiKey!);
  } catch (error) {
    if (!(error instanceof AutomaticIncomplete)) throw error;
    incomplete = error;
  }
  // After automatic mode, which saves the manifest it read before the entry was written.
  if (w.created) rememberCreated(machine, client, w.created.path, w.created);
  if (w.apiKey) {
    // --api-key (or CAIRN_API_KEY) comes first, so a setup code was used only when no key was given.
    if (request.setupCode !== undefined && request.apiKey === undefined)
      rememberCreatedKey(machine, client.id, request.serverName, w.apiKey);
    else if (!wasCreatedHere(machine, client.id, request.serverName, w.apiKey))
      forgetCreatedKey(machine, client.id, request.serverName);
  }
  finish(client, machine, request, w.apiKey, w.mcpUrl);
  const code = request.check
    ? await verifyInstall(client, request.serverName, w.entry, w.apiKey, machine, undefined, w.tokenReady)
    : 0;
  if (w.replaced)
    await retireReplacedKey(machine, client, w.replaced.mcpUrl, w.replaced.key, code === 0 && request.check);
  if (!incomplete) return code;
  reportIncomplete(client, request, machine, w, incomplete);
  return code === 0 ? AUTOMATIC_INCOMPLETE_EXIT : code;
}

/** Says what is in place, what is not, and the one command that finishes the job (no setup code: the installed key is reused). */
function reportIncomplete(
  client: ClientInfo,
  request: InstallRequest,
  machine: Machine,
  w: Written,
  failure: AutomaticIncomplete,
): void {
  const flags = [
    `--client ${client.id}`,
    client.id === 'kiro' ? '' : '--auto',
    client.id === 'claude-code' && request.marketplace ? `--marketplace ${shellCommand(request.marketplace, [])}` : '',
    request.autoUpdate ? '--auto-update' : '',
    request.serverName === 'cairn' ? '' : `--server-name ${request.serverName}`,
  ];
  machine.out(`✘ Automatic mode is not complete: ${failure.reason}`);
  machine.out(
    `In place: the "${request.serverName}" MCP entry for ${client.displayName} with the API key ${maskKey(w.apiKey ?? '')}: the agent can use Cairn when asked.`,
  );
  if (failure.ran.length > 0) machine.out(`Also done: ${failure.ran.join('; ')}.`);
  machine.out(`Not done: ${failure.adds.join('; ')}.`);
  const hint =
    client.id === 'claude-code'
      ? ' (for --marketplace: a git URL, owner/repo, or a folder holding .claude-plugin/marketplace.json)'
      : '';
  machine.out(
    `To finish, fix the cause${hint} and run:\n  ${installerCommand(flags.filter(Boolean).join(' '), w.mcpUrl)} --yes`,
  );
  machine.out('It reuses the key now in the entry: no new setup code or key is needed.');
}

function finish(
  client: ClientInfo,
  machine: Machine,
  request: InstallRequest,
  apiKey: string | undefined,
  mcpUrl: string,
): void {
  machine.out(
    `${client.displayName} is set up with ${apiKey ? `the API key ${maskKey(apiKey)}` : 'OAuth (sign in in the browser when the client asks)'}.`,
  );
  machine.out(client.afterInstall);
  if (request.serverName !== 'cairn')
    machine.out(
      `To remove it later: ${installerCommand(`--client ${client.id} --uninstall --server-name ${request.serverName}`, mcpUrl)}`,
    );
}

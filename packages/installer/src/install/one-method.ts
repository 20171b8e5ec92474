import { type ClientInfo, classifyBlock, mcpUrlFor } from '@cairn/clients';
import { installerCommand } from '../cli/self-command.js';
import { InstallerError } from '../files/config-error.js';
import type { ConfigInspection } from './inspect-config.js';

/** Refuses to put an OAuth entry beside an API-key entry for the same Cairn (or the reverse): a client with both may ignore the key. */
export function assertOneMethod(
  client: ClientInfo,
  config: ConfigInspection,
  serverName: string,
  mcpUrl: string,
  method: 'api-key' | 'oauth',
): void {
  for (const [name, value] of Object.entries(config.entries)) {
    const info = classifyBlock(value);
    if (!info || info.method === method) continue;
    const sameServer = name === serverName || (info.url !== undefined && mcpUrlFor(info.url) === mcpUrl);
    if (!sameServer) continue;
    const has = info.method === 'api-key' ? 'an API-key' : 'an OAuth';
    const wants = method === 'api-key' ? 'an API key' : 'OAuth';
    const rerun = method === 'oauth' ? ' --oauth' : '';
    throw new InstallerError(
      `${client.displayName} already has ${has} entry "${name}" for ${info.url ?? mcpUrl} in ${config.path}. ` +
        'Configure one method per client: with both, the client may pick OAuth and ignore the key.\n' +
        `To switch to ${wants}, remove it first:\n  ${installerCommand(`--client ${client.id} --uninstall --server-name ${name}`, mcpUrl)}\n` +
        `then run this command again${rerun ? ` (with${rerun})` : ''}.`,
      2,
    );
  }
}

import { KEY_PREFIX } from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';
import { exchangeSetupCode } from '../setup-code/exchange-setup-code.js';
import type { InstallRequest, Machine } from './context.js';

/** Where the key comes from, first match wins: --api-key, --setup-code, $CAIRN_API_KEY, the entry already installed, a hidden prompt. */
export async function resolveApiKey(
  request: InstallRequest,
  machine: Machine,
  baseUrl: string | undefined,
  existingKey: string | undefined,
): Promise<string> {
  let key = request.apiKey;
  if (key === undefined && request.setupCode !== undefined) {
    if (!baseUrl) throw new InstallerError('--setup-code needs --url (the Cairn address the code came from).');
    key = await exchangeSetupCode(baseUrl, request.setupCode, request.client, machine.hostname, machine.fetch);
  }
  key ??= machine.env.CAIRN_API_KEY || existingKey;
  key ??= await machine.askSecret(`API key for Cairn (starts with ${KEY_PREFIX}; input hidden): `);
  if (!key) {
    throw new InstallerError(
      `No API key: pass --api-key, --setup-code or set CAIRN_API_KEY (create one in the portal: Settings > API Keys > Generate API key), or use --oauth where the client supports it.`,
    );
  }
  key = key.trim();
  if (!key.startsWith(KEY_PREFIX) || /\s/.test(key))
    throw new InstallerError(`That is not a Cairn API key: keys start with ${KEY_PREFIX} and contain no spaces.`);
  return key;
}

/** The key shortened for display: prefix, an ellipsis and its last four characters. */
export function maskKey(key: string): string {
  return `${KEY_PREFIX}…${key.slice(-4)}`;
}

import { INSTALLER_USER_AGENT } from '@cairn/clients';
import { InstallerError } from '../files/config-error.js';

/** Trades a one-time setup code for a fresh API key: `POST <base>/api/v1/setup-codes/exchange`. */
export async function exchangeSetupCode(
  baseUrl: string,
  code: string,
  client: string,
  host: string,
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  const url = `${baseUrl.replace(/\/+$/, '').replace(/\/mcp$/, '')}/api/v1/setup-codes/exchange`;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': INSTALLER_USER_AGENT },
      body: JSON.stringify({ code: code.trim(), client, host }),
    });
  } catch (error) {
    throw new InstallerError(
      `Could not reach ${url} to exchange the setup code: ${describe(error)}. Check --url and your network.`,
    );
  }
  const body = (await response.json().catch(() => undefined)) as
    | { key?: unknown; error?: { code?: unknown; message?: unknown } }
    | undefined;
  if (response.ok && typeof body?.key === 'string' && body.key.length > 0) return body.key;
  // A refused code gets one message of the installer's own: the code may come from the portal or from the cairn CLI.
  if (response.status === 401) throw new InstallerError(REFUSED_CODE);
  const message =
    typeof body?.error?.message === 'string'
      ? body.error.message.trim().replace(/[.\s]+$/, '')
      : `HTTP ${response.status}${response.ok ? ' without a key in the answer' : ''}`;
  throw new InstallerError(`The setup code was not accepted: ${message}.`);
}

/** Said when Cairn refuses a setup code (used, expired or mistyped): where a new one comes from, whichever way the first was made. */
export const REFUSED_CODE =
  'The setup code was not accepted: it was already used, has expired (codes last 10 minutes) or was mistyped. ' +
  'Get a new one — in the portal (Datapacks > Connect), or on the Cairn server with `cairn setup-codes create --user <your email>` — and run the command again with it.';

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

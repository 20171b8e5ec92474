import { createHash, randomBytes } from 'node:crypto';
import { cleanName } from '@cairn/contract/terminal';
import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import { auditKeyCreated, MAX_KEY_NAME, prepareApiKey } from './api-keys.js';
import type { DomainDeps } from './deps.js';
import { parse } from './parse-input.js';

/** Setup codes start with this, so a pasted code is recognisable (and scannable). */
export const SETUP_CODE_PREFIX = 'cairn_stp_';
/** A code is good for one exchange within ten minutes. */
export const SETUP_CODE_TTL_MS = 10 * 60 * 1000;

/** Input of the exchange: the code, and what to name the key after. */
export const exchangeInput = z.object({
  code: z.string().trim().min(1).max(100),
  client: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[a-z0-9-]+$/, 'must be a client id such as "cursor"'),
  host: z.string().trim().min(1).max(100),
});

/** Mints a one-time code that an installer can trade for a fresh API key of this user. */
export async function createSetupCode(
  deps: DomainDeps,
  userId: string,
): Promise<{ code: string; createdAt: string; expiresAt: string }> {
  const code = SETUP_CODE_PREFIX + randomBytes(18).toString('base64url');
  const createdAt = deps.now();
  const expiresAt = new Date(Date.parse(createdAt) + SETUP_CODE_TTL_MS).toISOString();
  await deps.store.insertSetupCode({ codeHash: hash(code), userId, createdAt, expiresAt });
  return { code, createdAt, expiresAt };
}

/**
 * Trades a code for a new key named after the client and host. Everything that can be refused is
 * checked first (the host is shortened so the name fits); then, in one transaction, the code is
 * consumed and the key stored, so two installers racing with one code cannot both get a key and a
 * failed exchange leaves the code usable.
 */
export async function exchangeSetupCode(
  deps: DomainDeps,
  raw: z.input<typeof exchangeInput>,
): Promise<{ key: string; keyId: string; name: string }> {
  const input = parse(exchangeInput, raw);
  const name = keyNameFor(input.client, input.host);
  const minted = prepareApiKey(deps, 'pending', name);
  const record = (userId: string) => ({ record: { ...minted.record, userId }, keyHash: minted.keyHash });
  const userId = await deps.store.consumeSetupCode(hash(input.code), deps.now(), record);
  if (!userId) {
    throw new CairnError(
      'unauthenticated',
      'This setup code is not valid: it was already used, has expired (codes last 10 minutes) or was mistyped. Get a new one (in the portal: Datapacks > Connect; or on the server: cairn setup-codes create --user <email>) and run the command again.',
    );
  }
  const stored = record(userId).record;
  auditKeyCreated(deps, stored);
  return { key: minted.key, keyId: stored.id, name: stored.name };
}

/** "<client> on <host>", the host cut (with an ellipsis) so the whole name fits a key name. */
export function keyNameFor(client: string, host: string): string {
  const prefix = `${client} on `;
  const clean = cleanName(host) || 'unknown host';
  const room = MAX_KEY_NAME - prefix.length;
  const chars = Array.from(clean);
  return (
    prefix +
    (chars.length <= room
      ? clean
      : `${chars
          .slice(0, room - 1)
          .join('')
          .trimEnd()}…`)
  );
}

function hash(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

import { z } from 'zod';
import { displayParts, generateApiKey, hashApiKey } from '../auth/api-keys/key-format.js';
import { CairnError } from '../errors/cairn-error.js';
import type { ApiKeyRecord } from '../store/types.js';
import type { DomainDeps } from './deps.js';
import { parse } from './parse-input.js';

const keyName = z.string().trim().min(1, 'give the key a name').max(64);

/** Mints a named key for a user. The plaintext key is in the result and nowhere else, ever. */
export async function createApiKey(deps: DomainDeps, userId: string, name: string): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record: ApiKeyRecord = {
    id: deps.newId('key'), userId, name: parse(keyName, name), ...displayParts(key), createdAt: deps.now(),
    revokedAt: null, lastUsedAt: null, lastUsedClient: null,
  };
  await deps.store.insertApiKey(record, hashApiKey(key));
  return { key, record };
}

/** A user's keys, newest first, as they may be shown (start and last four only). */
export async function listApiKeys(deps: DomainDeps, userId: string): Promise<ApiKeyRecord[]> {
  return deps.store.listApiKeys(userId);
}

/** Revokes a key; `ownerId` limits it to that user's keys (omit for operator use from the CLI). */
export async function revokeApiKey(deps: DomainDeps, id: string, ownerId?: string): Promise<ApiKeyRecord> {
  const key = await deps.store.getApiKey(id);
  if (!key || (ownerId !== undefined && key.userId !== ownerId)) throw new CairnError('not_found', `No API key ${id}; list the keys to see their ids.`);
  if (key.revokedAt) return key;
  const at = deps.now();
  await deps.store.revokeApiKey(id, at);
  return { ...key, revokedAt: at };
}

import { CairnError } from '../errors/cairn-error.js';
import type { KeyScope } from '../store/types.js';
import type { Caller } from './caller.js';

export type { KeyScope } from '../store/types.js';

/** Every scope a key can have, narrowest first. */
export const KEY_SCOPES: readonly KeyScope[] = ['read', 'read-write'];

/** What a read-only caller is told when it tries to change something: why, and how to get a key that may. */
export const READ_ONLY_KEY_MESSAGE =
  'This API key is read-only (scope "read"): it can list, search, get guidance and read entries, but not save, update or delete. ' +
  'To write, use a read-write key: create one in the Cairn portal under Settings > API Keys > Generate API key (choose "Read and write"), ' +
  'or run: cairn keys create --user <email> --name <name> --scope read-write';

/** True when this caller may change data; the one rule every adapter and write verb applies. */
export function mayWrite(caller: Caller): boolean {
  return caller.scope === 'read-write';
}

/** Throws the read-only refusal (forbidden) unless the caller may write. */
export function assertMayWrite(caller: Caller): void {
  if (!mayWrite(caller)) throw new CairnError('forbidden', READ_ONLY_KEY_MESSAGE, { reason: 'read_only_key' });
}

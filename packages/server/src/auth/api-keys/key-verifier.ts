import { keyState } from '../../domain/api-keys.js';
import type { Store } from '../../store/store.js';
import type { ApiKeyRecord, KeyUsage } from '../../store/types.js';
import { UsageBatch } from '../usage-batch.js';
import { hashApiKey, isWellFormedApiKey } from './key-format.js';

/**
 * Checks presented keys against the store. A malformed key or a failed checksum is refused before
 * any database lookup. Usage (last used, by which client) is kept in memory and written in one
 * batch per interval, so serving a request never writes to the database.
 */
export class KeyVerifier {
  private readonly usage: UsageBatch<KeyUsage>;

  constructor(
    private readonly store: Store,
    flushIntervalMs = 15_000,
    /** The clock expiry is judged by (the domain's, so tests can move time). */
    private readonly now: () => string = () => new Date().toISOString(),
    /** Told when a genuine key is refused because it expired (the audit trail records the first time). */
    private readonly onExpired?: (record: ApiKeyRecord) => void,
  ) {
    this.usage = new UsageBatch((batch) => store.recordKeyUsage(batch), flushIntervalMs);
  }

  /**
   * The key's record when it is well-formed, known, not revoked and not expired; otherwise undefined.
   * Revocation and expiry are judged on every call against the current clock, never remembered,
   * so a revoked or expired key stops at once (and the same on every instance).
   */
  async verify(key: string): Promise<ApiKeyRecord | undefined> {
    if (!isWellFormedApiKey(key)) return undefined;
    const record = await this.store.findApiKeyByHash(hashApiKey(key));
    const state = record && keyState(record, this.now());
    if (state === 'expired') this.onExpired?.(record!);
    return state === 'active' ? record : undefined;
  }

  /** Notes that a key was used now by a client; persisted on the next flush. */
  noteUse(keyId: string, client: string | null): void {
    this.usage.note(keyId, { id: keyId, at: new Date().toISOString(), client: client?.slice(0, 200) ?? null });
  }

  /** This instance's not yet written use of a key, if any. */
  pendingUse(keyId: string): KeyUsage | undefined {
    return this.usage.pendingUse(keyId);
  }

  /** Writes pending usage; on failure the usage is kept for the next try. */
  flush(): Promise<void> {
    return this.usage.flush();
  }

  /** Stops the timer and writes what is pending. */
  close(): Promise<void> {
    return this.usage.close();
  }
}

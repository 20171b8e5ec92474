import { EpochCache } from '../../cache/epoch-cache.js';
import { keyState } from '../../domain/api-keys.js';
import type { Store } from '../../store/store.js';
import type { ApiKeyRecord, KeyUsage } from '../../store/types.js';
import { UsageBatch } from '../usage-batch.js';
import { hashApiKey, isWellFormedApiKey } from './key-format.js';

/** A genuine, usable key, and the access epoch it was checked under (the rest of the request reads at it). */
export interface VerifiedKey {
  record: ApiKeyRecord;
  epoch: number;
}

/**
 * Checks presented keys against the store. A malformed key or a failed checksum is refused before
 * any database lookup. A known key's record is kept until the access epoch moves (any key, user,
 * membership or datapack change, on any instance), so a request reads one row instead of the key.
 * Usage (last used, by which client) is kept in memory and written in one batch per interval, so
 * serving a request never writes to the database.
 */
export class KeyVerifier {
  private readonly usage: UsageBatch<KeyUsage>;
  /** Records by key hash; unknown keys are not kept, so guessing cannot fill it. */
  private readonly records = new EpochCache<ApiKeyRecord>();
  /** The same records by id, for the client a use names (see noteUse). */
  private readonly recordsById = new EpochCache<ApiKeyRecord>();

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
   * Revocation is judged on every call from the access epoch, read from the database each time, so
   * a revoked key stops at once, on every instance; expiry against the current clock.
   */
  async verify(key: string): Promise<VerifiedKey | undefined> {
    if (!isWellFormedApiKey(key)) return undefined;
    const hash = hashApiKey(key);
    const epoch = await this.store.accessEpoch();
    let record = this.records.get(hash, epoch);
    if (!record) {
      record = await this.store.findApiKeyByHash(hash);
      if (record) {
        this.records.set(hash, epoch, record);
        this.recordsById.set(record.id, epoch, record);
      }
    }
    const state = record && keyState(record, this.now());
    if (state === 'expired') this.onExpired?.(record!);
    return state === 'active' ? { record: record!, epoch } : undefined;
  }

  /** Notes that a key was used now by a client; persisted on the next flush. */
  noteUse(keyId: string, client: string | null): void {
    const use = { id: keyId, at: new Date().toISOString(), client: client?.slice(0, 200) ?? null };
    this.usage.note(keyId, use);
    // What the row will say once written; a kept record must not name an older client than the database.
    const kept = this.recordsById.peek(keyId);
    if (kept) Object.assign(kept, { lastUsedAt: use.at, lastUsedClient: use.client });
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

import { BoundedCache } from './bounded-cache.js';

/**
 * Reads that stay true until the access epoch moves: the database counts every change to keys,
 * users, memberships, teams, organizations and datapacks in one row (`access_epoch`, kept by
 * triggers, so another instance's change and an operator's SQL count too), and a request reads
 * that row once instead of its credential, memberships and datapacks. A value is stored under
 * the epoch read before it was loaded, so it is never older than its tag. The cache holds one
 * epoch's values: any other epoch empties it (a lower one too: a restored backup counts from an
 * older number, and a request that read its epoch just before a change only costs a reload).
 */
export class EpochCache<V> {
  private epoch = -1;
  private readonly values: BoundedCache<string, V>;

  constructor(
    /** Callers kept at most; the oldest stored goes first (a flood of distinct callers cannot grow it). */
    max = 10_000,
  ) {
    this.values = new BoundedCache(max);
  }

  get(key: string, epoch: number): V | undefined {
    this.moveTo(epoch);
    return this.values.get(key);
  }

  /** The value kept for this key under the cache's current epoch, whatever the caller's. */
  peek(key: string): V | undefined {
    return this.values.get(key);
  }

  set(key: string, epoch: number, value: V): void {
    this.moveTo(epoch);
    this.values.set(key, value);
  }

  private moveTo(epoch: number): void {
    if (epoch === this.epoch) return;
    this.values.clear();
    this.epoch = epoch;
  }
}

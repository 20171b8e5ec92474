/**
 * Usage noted in memory and written in one batch per interval (API keys, OAuth grants), so serving a
 * request never writes to the database. A failed write keeps the batch for the next try, unless a
 * newer use of the same credential has arrived meanwhile.
 */
export class UsageBatch<T> {
  private pending = new Map<string, T>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    flushIntervalMs: number,
  ) {
    if (flushIntervalMs > 0) {
      this.timer = setInterval(() => void this.flush().catch(() => {}), flushIntervalMs);
      this.timer.unref();
    }
  }

  note(key: string, use: T): void {
    this.pending.set(key, use);
  }

  /** This instance's not yet written use under this key, if any. */
  pendingUse(key: string): T | undefined {
    return this.pending.get(key);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.write([...batch.values()]);
    } catch (error) {
      for (const [key, use] of batch) if (!this.pending.has(key)) this.pending.set(key, use);
      throw error;
    }
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

import type { Store } from '../../store/store.js';
import type { OAuthUse } from '../../store/types.js';

/**
 * Which client last used each OAuth grant (a user's tokens for one app), as `initialize` named it:
 * kept in memory and written in one batch per interval, like API key usage, so serving a request
 * never writes to the database.
 */
export class OAuthUsage {
  private pending = new Map<string, OAuthUse>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    flushIntervalMs = 15_000,
  ) {
    if (flushIntervalMs > 0) {
      this.timer = setInterval(() => void this.flush().catch(() => {}), flushIntervalMs);
      this.timer.unref();
    }
  }

  note(userId: string, clientId: string, client: string | null): void {
    this.pending.set(`${userId}\n${clientId}`, { userId, clientId, at: new Date().toISOString(), client: client?.slice(0, 200) ?? null });
  }

  /** This instance's not yet written use of a user's grant to this app. */
  pendingUse(userId: string, clientId: string): OAuthUse | undefined {
    return this.pending.get(`${userId}\n${clientId}`);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.store.recordOAuthUse(batch);
    } catch (error) {
      for (const u of batch) {
        const key = `${u.userId}\n${u.clientId}`;
        if (!this.pending.has(key)) this.pending.set(key, u);
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

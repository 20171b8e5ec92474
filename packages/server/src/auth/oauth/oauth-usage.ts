import type { Store } from '../../store/store.js';
import type { OAuthUse } from '../../store/types.js';
import { UsageBatch } from '../usage-batch.js';

/** Which client last used each OAuth grant (a user's tokens for one app), as `initialize` named it. */
export class OAuthUsage {
  private readonly batch: UsageBatch<OAuthUse>;

  constructor(store: Store, flushIntervalMs = 15_000) {
    this.batch = new UsageBatch((uses) => store.recordOAuthUse(uses), flushIntervalMs);
  }

  note(userId: string, clientId: string, client: string | null): void {
    this.batch.note(`${userId}\n${clientId}`, {
      userId,
      clientId,
      at: new Date().toISOString(),
      client: client?.slice(0, 200) ?? null,
    });
  }

  /** This instance's not yet written use of a user's grant to this app. */
  pendingUse(userId: string, clientId: string): OAuthUse | undefined {
    return this.batch.pendingUse(`${userId}\n${clientId}`);
  }

  flush(): Promise<void> {
    return this.batch.flush();
  }

  close(): Promise<void> {
    return this.batch.close();
  }
}

import type { KyselyStore } from '../store/kysely-store.js';

/**
 * Searches wait at this gate while it is closed: a slow operation a test controls, not a sleep. With
 * `burnMs` set, each search also holds the event loop that long (synchronous work, as SQLite's is),
 * so a test can see whether anything else gets answered between two searches.
 */
export class SearchGate {
  burnMs = 0;
  /** Searches that got past the gate and their burn. */
  passed = 0;
  private open = true;
  private release: () => void = () => {};
  private gate: Promise<void> = Promise.resolve();
  private entered: (() => void)[] = [];

  close(): void {
    this.open = false;
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  reopen(): void {
    this.open = true;
    this.release();
  }

  /** Resolves once a search is waiting at the closed gate. */
  waiting(): Promise<void> {
    return new Promise((resolve) => this.entered.push(resolve));
  }

  wrap(store: KyselyStore): KyselyStore {
    const original = store.rankedEntries.bind(store);
    store.rankedEntries = async (query) => {
      if (!this.open) {
        for (const wake of this.entered.splice(0)) wake();
        await this.gate;
      }
      const until = performance.now() + this.burnMs;
      while (performance.now() < until);
      this.passed++;
      return original(query);
    };
    return store;
  }
}

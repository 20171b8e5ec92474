import type { MiddlewareHandler } from 'hono';

/**
 * Requests being handled, so that shutdown closes the database only after the last of them has
 * answered: a client that gave up closes its connection, and the listener's own close no longer
 * waits for a handler still working on its behalf.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  readonly middleware: MiddlewareHandler = async (_c, next) => {
    this.count++;
    try {
      await next();
    } finally {
      this.count--;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  };

  /** Resolves once no request is being handled, or after `graceMs` whatever is left. */
  drained(graceMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

import { describeDatabaseError, isDatabaseUnavailable } from '../errors/database-unavailable.js';
import type { Logger } from '../log/logger.js';

/**
 * Tracks whether the database is reachable, so that an outage is logged once when it starts and once
 * when it ends, however many requests and pooled connections fail in between.
 */
export class DatabaseHealth {
  private down = false;
  private log: Logger | undefined;

  /** Where outage messages go; set once the logger exists (the store is opened before it). */
  useLog(log: Logger): void {
    this.log = log;
  }

  /** Notes a failure; returns whether it means the database is unreachable. */
  noteError(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (!this.down) {
      this.down = true;
      this.log?.warn(
        'database unreachable: requests get 503 and /readyz says unavailable until it is back',
        describeDatabaseError(error),
      );
    }
    return true;
  }

  /** Notes an error a pooled connection emitted on its own (not in answer to a query). */
  noteConnectionError(error: unknown): void {
    if (!this.noteError(error)) this.log?.warn('database connection failed', describeDatabaseError(error));
  }

  /** Notes that the database answered. */
  noteReachable(): void {
    if (!this.down) return;
    this.down = false;
    this.log?.info('database reachable again');
  }
}

import { redact } from '@cairn/contract/redaction';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import type { Logger } from '../log/logger.js';
import type { RuleUsageRecord } from '../store/rule-usage-store.js';
import type { Store } from '../store/store.js';

const BATCH = 200;
const MAX_QUEUED = 10_000;

/**
 * Guidance answers waiting to be written, one queue per DomainDeps (so per Cairn): recorded after
 * the answer is made, written in batches off the request's path. A failed write is logged (the
 * error and a count, never a task) and never fails the answer.
 */
export class RuleUsageQueue {
  queue: RuleUsageRecord[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  constructor(
    private readonly store: Store,
    /** Where failed writes are reported (the serving Cairn's log). */
    public log: Logger,
  ) {}

  push(record: RuleUsageRecord): void {
    this.queue.push(record);
    if (this.queue.length > MAX_QUEUED) this.queue.shift();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    }).unref();
  }

  /** Writes every recorded answer not yet written (tests, shutdown). */
  flush(): Promise<void> {
    this.running ??= this.write().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async write(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, BATCH);
      try {
        await this.store.appendRuleUsage(batch.map(redacted));
      } catch (error) {
        if (!isDatabaseUnavailable(error))
          this.log.warn('could not record rule usage; dropped', {
            answers: batch.length,
            error: (error as Error).message,
          });
      }
      this.queue.splice(0, batch.length);
    }
  }
}

/** The task, session and client as stored: secrets redacted (off the request's path, in the flush). */
function redacted(r: RuleUsageRecord): RuleUsageRecord {
  const clean = (s: string | null) => (s === null ? null : redact(s).text);
  return { ...r, task: redact(r.task).text, session: clean(r.session), client: clean(r.client) };
}

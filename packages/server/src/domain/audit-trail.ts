import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import type { Logger } from '../log/logger.js';
import type { AuditEvent } from '../store/audit-types.js';
import type { Store } from '../store/store.js';

/** CAIRN_AUDIT_DAYS when unset. */
export const DEFAULT_AUDIT_DAYS = 365;
/** Events held in memory at most while the database refuses them; the oldest are dropped first. */
const MAX_QUEUED = 10_000;
/** Events written per statement. */
const BATCH = 200;

/** An event as recorded on the request path; the flush fills in the actor's id or email. */
export interface QueuedEvent extends AuditEvent {
  /** Write it only if the trail holds no event of this kind about this target yet (e.g. a key's expiry). */
  once?: boolean;
}

/**
 * The audit trail's write side: events queue in memory and are written in batches off the request's
 * path, so recording never blocks or fails the request it records. A failed write is logged (the
 * error only, never an event's content) and retried on the next flush.
 */
export class AuditTrail {
  private queue: QueuedEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private log: Logger | undefined;
  private dropped = 0;
  /** `once` events this instance has already queued: a client retrying an expired key costs no lookups. */
  private readonly onceSeen = new Set<string>();

  constructor(
    private readonly store: Store,
    /** Days an event is kept before the hourly purge deletes it (CAIRN_AUDIT_DAYS). */
    readonly retentionDays = DEFAULT_AUDIT_DAYS,
    private readonly flushIntervalMs = 2_000,
  ) {}

  /** Where failed writes are reported. */
  useLog(log: Logger): void {
    this.log = log;
  }

  /** Queues an event; returns at once. */
  record(event: QueuedEvent): void {
    if (event.once && event.target?.id) {
      const key = `${event.kind}\n${event.target.id}`;
      if (this.onceSeen.has(key)) return;
      this.onceSeen.add(key);
      if (this.onceSeen.size > MAX_QUEUED) this.onceSeen.delete(this.onceSeen.values().next().value!);
    }
    this.queue.push(event);
    if (this.queue.length > MAX_QUEUED) {
      this.queue.shift();
      this.dropped++;
    }
    if (!this.timer && this.flushIntervalMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Events not yet written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Writes what is queued (or joins the write under way); resolves to how many were written, never rejects. */
  flush(): Promise<number> {
    this.running ??= this.write().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(): Promise<number> {
    let written = 0;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, BATCH);
      try {
        const ready = await this.complete(batch);
        await this.store.appendAuditEvents(ready);
      } catch (error) {
        // Kept for the next flush; the message names the failure, never the events. An outage is
        // logged once by the store, not on every retry here.
        if (!isDatabaseUnavailable(error))
          this.log?.warn('could not write the audit trail; will retry', {
            events: this.queue.length,
            error: (error as Error).message,
          });
        if (this.flushIntervalMs > 0 && !this.timer) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            void this.flush();
          }, this.flushIntervalMs * 5);
          this.timer.unref();
        }
        return written;
      }
      this.queue.splice(0, batch.length);
      written += batch.length;
    }
    if (this.dropped > 0) {
      this.log?.warn('audit events dropped while the database refused them', { dropped: this.dropped });
      this.dropped = 0;
    }
    return written;
  }

  /** Fills in each actor's id or email and drops `once` events already on record. */
  private async complete(batch: QueuedEvent[]): Promise<AuditEvent[]> {
    const ready: AuditEvent[] = [];
    const seen = new Set<string>();
    for (const { once, ...event } of batch) {
      if (once && event.target?.id) {
        const key = `${event.kind}\n${event.target.id}`;
        if (
          seen.has(key) ||
          (await this.store.listAuditEvents({ kind: event.kind, targetId: event.target.id, limit: 1 })).length > 0
        )
          continue;
        seen.add(key);
      }
      if (event.actorUserId && !event.actorEmail)
        event.actorEmail = (await this.store.getUser(event.actorUserId))?.email ?? null;
      else if (event.actorEmail && !event.actorUserId)
        event.actorUserId = (await this.store.findUserByEmail(event.actorEmail))?.id ?? null;
      ready.push(event);
    }
    return ready;
  }
}

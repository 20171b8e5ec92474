import type { OverloadSettings } from '../../config/load-config.js';

/** A request let in: call `release` once it has its answer. */
export interface Admitted {
  admitted: true;
  /** Milliseconds it waited in the queue. */
  waitedMs: number;
  release(): void;
}

/** A request refused: why, and the seconds to tell the client to wait (Retry-After). */
export interface Refused {
  admitted: false;
  /** `full`: the queue was full; `slow`: its expected wait was over the limit; `timeout`: it waited the longest allowed. */
  reason: 'full' | 'slow' | 'timeout';
  retryAfterSeconds: number;
}

interface Waiter {
  since: number;
  timer: NodeJS.Timeout;
  settle(answer: Admitted | Refused): void;
}

/** Weight of the newest request in the moving average of how long requests take. */
const EWMA_WEIGHT = 0.1;
/** What a request is assumed to take before any has been measured. */
const INITIAL_SERVICE_MS = 20;
const MAX_RETRY_AFTER_S = 30;
/** One credential's line holds at most this share of the queue. */
const LINE_SHARE = 8;

/**
 * The per-instance bound on work in progress: at most `maxConcurrent` requests are handled at once
 * and at most `maxQueued` wait, each for at most `maxQueueWaitMs`; anything beyond is refused at once,
 * so an overloaded instance answers "busy" in milliseconds instead of making everyone wait.
 *
 * The queue is fair between credentials: each has its own line and turns go round them, so a
 * flood from one key waits behind everyone else's requests instead of in front of them, and one
 * line holds at most an eighth of the queue, so a flood cannot fill it either. A request once
 * queued is never pushed out for a later one: every refusal but a time-out is immediate.
 */
export class Admission {
  private running = 0;
  private queued = 0;
  /** Waiting requests by credential, in the order their lines get a turn (a Map keeps insertion order). */
  private readonly lines = new Map<string, Waiter[]>();
  private serviceMs = INITIAL_SERVICE_MS;
  /** Refusals since the instance was last not busy (for the log). */
  refusals = 0;

  constructor(
    readonly settings: OverloadSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Requests being handled, and waiting. */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.queued };
  }

  /**
   * The refusal a request of this credential gets right now, if any, without taking a place: lets the
   * HTTP edge refuse before it reads the body, so a refusal costs next to nothing however busy it is.
   */
  refusesNow(credential: string): Refused | undefined {
    if (this.running < this.settings.maxConcurrent && this.queued === 0) return undefined;
    if (this.expectedWaitMs(this.aheadOf(credential) + 1) > this.settings.maxQueueWaitMs) return this.refuse('slow');
    if (this.queueFullFor(credential)) return this.refuse('full');
    return undefined;
  }

  /** Lets a request in now, after a wait in its credential's line, or refuses it. */
  enter(credential: string, aborted?: AbortSignal): Promise<Admitted | Refused> {
    if (this.running < this.settings.maxConcurrent && this.queued === 0) return Promise.resolve(this.admit(this.now()));
    if (this.expectedWaitMs(this.aheadOf(credential) + 1) > this.settings.maxQueueWaitMs)
      return Promise.resolve(this.refuse('slow'));
    if (this.queueFullFor(credential)) return Promise.resolve(this.refuse('full'));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        since: this.now(),
        timer: setTimeout(() => this.drop(credential, waiter, 'timeout'), this.settings.maxQueueWaitMs),
        settle: resolve,
      };
      const line = this.lines.get(credential);
      if (line) line.push(waiter);
      else this.lines.set(credential, [waiter]);
      this.queued++;
      // A client that gave up while waiting gives its place back (its answer would go nowhere).
      aborted?.addEventListener('abort', () => this.drop(credential, waiter, 'timeout'), { once: true });
    });
  }

  /** Seconds after which the work ahead of a newcomer should be done, for Retry-After. */
  retryAfterSeconds(): number {
    const drainMs = this.expectedWaitMs(this.running + this.queued);
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(drainMs / 1000)));
  }

  /** Waiting requests a newcomer of this credential would wait behind, turns going round the lines. */
  private aheadOf(credential: string): number {
    return this.servedBy((this.lines.get(credential)?.length ?? 0) + 1);
  }

  /** How many waiting requests have had a turn once every line has had `turn` turns (the round robin's count). */
  private servedBy(turn: number): number {
    let served = 0;
    for (const line of this.lines.values()) served += Math.min(line.length, turn);
    return served;
  }

  /**
   * Refuses now, as slow, each line's last waiting requests while at the current pace they would
   * still be waiting when their longest wait runs out: the pace dropped since they came (the
   * requests ahead took longer than the moving average said), and they would be refused anyway,
   * only later. Refused now, their clients hear "busy" seconds sooner.
   */
  private shedHopeless(): void {
    if (this.queued === 0) return;
    const now = this.now();
    let served = this.servedByTable();
    for (const [credential, line] of [...this.lines]) {
      for (let last = line.at(-1); last; last = line.at(-1)) {
        const left = this.settings.maxQueueWaitMs - (now - last.since);
        if (this.expectedWaitMs(served(line.length)) <= left) break;
        this.drop(credential, last, 'slow');
        served = this.servedByTable();
      }
    }
  }

  /**
   * servedBy for many turns at once, from the lines' lengths sorted with their running sums: each
   * release asks it for every line, and summing over every line each time cost O(lines²) (its
   * share of the CPU with many agents queued: docs/benchmarks.md).
   */
  private servedByTable(): (turn: number) => number {
    const lengths = Array.from(this.lines.values(), (line) => line.length).sort((a, b) => a - b);
    const sums = new Array<number>(lengths.length + 1);
    sums[0] = 0;
    for (let k = 0; k < lengths.length; k++) sums[k + 1] = sums[k]! + lengths[k]!;
    return (turn) => {
      let shorter = 0;
      let hi = lengths.length;
      while (shorter < hi) {
        const mid = (shorter + hi) >>> 1;
        if (lengths[mid]! < turn) shorter = mid + 1;
        else hi = mid;
      }
      return sums[shorter]! + turn * (lengths.length - shorter);
    };
  }

  private expectedWaitMs(ahead: number): number {
    return (ahead / this.settings.maxConcurrent) * this.serviceMs;
  }

  private admit(since: number): Admitted {
    this.running++;
    const started = this.now();
    let released = false;
    return {
      admitted: true,
      waitedMs: started - since,
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        this.serviceMs += EWMA_WEIGHT * (this.now() - started - this.serviceMs);
        this.next();
        this.shedHopeless();
      },
    };
  }

  private refuse(reason: Refused['reason']): Refused {
    this.refusals++;
    return { admitted: false, reason, retryAfterSeconds: this.retryAfterSeconds() };
  }

  /** Gives a free slot to the head of the next line in turn; that line goes to the back of the round. */
  private next(): void {
    while (this.running < this.settings.maxConcurrent) {
      const first = this.lines.entries().next();
      if (first.done) return;
      const [credential, line] = first.value;
      const waiter = line.shift()!;
      this.lines.delete(credential);
      if (line.length > 0) this.lines.set(credential, line);
      this.queued--;
      clearTimeout(waiter.timer);
      const turn = this.admit(waiter.since);
      // Handed over on a later turn of the event loop, not straight away: the answer that freed the
      // turn is written, and the probes and refusals already read are answered, before the next
      // request's synchronous work (SQLite's queries run on the event loop) starts.
      setImmediate(() => waiter.settle(turn));
    }
  }

  /** Whether the queue, or this credential's share of it, is full. */
  private queueFullFor(credential: string): boolean {
    const own = this.lines.get(credential)?.length ?? 0;
    return (
      this.queued >= this.settings.maxQueued || own >= Math.max(1, Math.ceil(this.settings.maxQueued / LINE_SHARE))
    );
  }

  private drop(credential: string, waiter: Waiter, reason: Refused['reason']): void {
    const line = this.lines.get(credential);
    const at = line?.indexOf(waiter) ?? -1;
    if (!line || at < 0) return;
    line.splice(at, 1);
    if (line.length === 0) this.lines.delete(credential);
    this.queued--;
    clearTimeout(waiter.timer);
    waiter.settle(this.refuse(reason));
  }
}

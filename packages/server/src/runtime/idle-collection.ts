import type { EventEmitter } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How long the server must have had no request before it collects its garbage once. V8 keeps its
 * young generation at the size the last burst of work grew it to (32 MB of semi-spaces on a 64-bit
 * Node), and its memory reducer rarely runs on a heap as small as Cairn's, so an idle Cairn kept
 * 30–40 MB it was not using. Full collections after the work stops give it back: V8 shrinks the
 * young generation when it measures a low allocation rate, and frees the old generation's empty
 * pages. It measures that rate between collections, so the first one, which still counts the last
 * burst, often leaves the young generation as it was; the second, right after, shrinks it (seen in
 * every run, against about half with one). The pause (30–60 ms for both) falls when nothing is
 * waiting for an answer.
 */
export const IDLE_COLLECTION_MS = 10_000;

type Collect = () => void;

/**
 * V8's gc() without --expose-gc on the command line: the flag still takes effect for contexts made
 * after it is set, so a fresh vm context hands the function over; the flag is then turned off
 * again. Undefined where the runtime does not allow it (the server then simply never collects).
 */
export function exposedGc(): Collect | undefined {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as Collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    setFlagsFromString('--no-expose-gc');
    return typeof gc === 'function' ? (gc as Collect) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Collects garbage once the server has been left alone for `idleMs`: at start (start-up's own
 * garbage), and after every stretch of requests. Never twice in a row without a request between,
 * and its timer never keeps the process alive.
 */
export class IdleCollection {
  private lastRequestAt: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly onRequest = () => {
    this.lastRequestAt = this.now();
    this.timer ??= this.schedule(this.idleMs);
  };

  constructor(
    private readonly server: EventEmitter,
    private readonly collect: Collect,
    private readonly idleMs = IDLE_COLLECTION_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.lastRequestAt = now();
    server.on('request', this.onRequest);
    this.timer = this.schedule(idleMs);
  }

  stop(): void {
    this.server.off('request', this.onRequest);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): NodeJS.Timeout {
    return setTimeout(() => this.check(), ms).unref();
  }

  private check(): void {
    const quietFor = this.now() - this.lastRequestAt;
    if (quietFor < this.idleMs) {
      this.timer = this.schedule(this.idleMs - quietFor);
      return;
    }
    this.timer = undefined;
    this.collect();
    this.collect();
  }
}

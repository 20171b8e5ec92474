import type { EventEmitter } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How long the server must have had no request before it collects its garbage. V8 keeps its young
 * generation at the size the last burst of work grew it to (32 MB of semi-spaces on a 64-bit Node),
 * and its memory reducer rarely runs on a heap as small as Cairn's, so an idle Cairn kept tens of
 * megabytes it was not using (docs/benchmarks.md). Full collections once the work stops give it back: V8 frees the old
 * generation's empty pages, and shrinks the young generation when it measures a low allocation
 * rate. It measures that rate from one collection to the next, so a first pass right after a burst
 * (start-up's included) still sees the burst and often leaves the young generation as it was; a
 * second pass SECOND_PASS_MS later, with almost nothing allocated in between, shrinks it every time
 * (two passes back to back did it in about half the runs). V8's --optimize-for-size is on during
 * each pass only: the pass then compacts the old generation's half-empty pages too (down to about
 * what is live); it is off again for requests, whose speed it would cost. A pass pauses the process
 * for tens of milliseconds, when nothing is waiting for an answer.
 */
export const IDLE_COLLECTION_MS = 10_000;
/** Time between the two passes of an idle collection; longer than V8's 5 s allocation-rate window. */
export const SECOND_PASS_MS = 6_000;

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
 * garbage), and after every stretch of requests; a second pass follows `secondPassMs` later unless
 * a request came in between. Nothing more until the next request, and its timer never keeps the
 * process alive.
 */
export class IdleCollection {
  private lastRequestAt: number;
  private passes = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly onRequest = () => {
    this.lastRequestAt = this.now();
    this.passes = 0;
    this.timer ??= this.schedule(this.idleMs);
  };

  constructor(
    private readonly server: EventEmitter,
    private readonly collect: Collect,
    private readonly idleMs = IDLE_COLLECTION_MS,
    private readonly secondPassMs = SECOND_PASS_MS,
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
    this.pass();
    this.passes++;
    this.timer = this.passes < 2 ? this.schedule(this.secondPassMs) : undefined;
  }

  private pass(): void {
    // An operator who runs node with --optimize-for-size (or its negation) keeps that choice.
    const toggle = !process.execArgv.some((flag) => /^--(no-)?optimize[-_]for[-_]size\b/.test(flag));
    if (toggle) setFlagsFromString('--optimize-for-size');
    try {
      this.collect();
    } finally {
      if (toggle) setFlagsFromString('--no-optimize-for-size');
    }
  }
}

import { BoundedCache } from '../cache/bounded-cache.js';
import type { Logger } from '../log/logger.js';
import type { KyselyStore } from '../store/kysely-store.js';
import { type EmbeddingsProvider, textToEmbed } from './provider.js';

const BATCH = 32;
/** A provider that fails is tried again after this long, or sooner after a write (at most once a second). */
const RETRY_MS = 30_000;
const RETRY_AFTER_WRITE_MS = 1_000;
/** With nothing to do, look again after this long: other instances' writes on a shared database. */
const IDLE_MS = 5 * 60_000;
const PROGRESS_EVERY_MS = 10_000;
/** A search waits this long for its query's vector before ranking with the offline word vectors. */
const QUERY_TIMEOUT_MS = 2_000;
const BATCH_TIMEOUT_MS = 60_000;
const QUERY_CACHE = 500;

/**
 * Keeps every live entry's vector from the embeddings provider current, in the background:
 * existing entries at start (backfill), each new version after a write, all of them again after a
 * model change. Search asks it for the query's vector; when the provider is down it says so once
 * in the log and search ranks with the offline word vectors instead. Nothing here fails a request.
 */
export class Embedder {
  private stopped = true;
  private wake: (() => void) | undefined;
  /** A write arrived since the last look for work. */
  private dirty = false;
  private running: Promise<void> | undefined;
  private outage = false;
  private lastProgress = 0;
  private readonly queries = new BoundedCache<string, Float32Array>(QUERY_CACHE);

  constructor(
    private readonly store: KyselyStore,
    private readonly provider: EmbeddingsProvider,
    private readonly log: Logger,
  ) {}

  get model(): string {
    return this.provider.model;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
  }

  /** Something was written: look for work now. */
  notify(): void {
    this.dirty = true;
    // During an outage the loop looks at `dirty` once a second rather than at every write.
    if (!this.outage) this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  /** The query's vector, or undefined when the provider cannot give it in time. */
  async queryVector(text: string): Promise<Float32Array | undefined> {
    const cached = this.queries.get(text);
    if (cached) return cached;
    try {
      const [vector] = await this.provider.embed([text], QUERY_TIMEOUT_MS);
      this.queries.set(text, vector!);
      this.recovered();
      return vector;
    } catch (error) {
      this.failed(error as Error);
      return undefined;
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let pause = IDLE_MS;
      try {
        const work = await this.store.entriesToEmbed(this.model, BATCH);
        if (work.length > 0) {
          const vectors = await this.provider.embed(work.map(textToEmbed), BATCH_TIMEOUT_MS);
          await this.store.saveEmbeddings(
            this.model,
            work.map((e, i) => ({ entryId: e.id, version: e.version, vector: vectors[i]! })),
          );
          this.recovered();
          await this.reportProgress(work.length < BATCH);
          pause = work.length < BATCH ? IDLE_MS : 0;
        }
      } catch (error) {
        this.failed(error as Error);
        pause = RETRY_MS;
      }
      await this.waitForWork(pause);
    }
  }

  private async reportProgress(done: boolean): Promise<void> {
    if (!done && Date.now() - this.lastProgress < PROGRESS_EVERY_MS) return;
    this.lastProgress = Date.now();
    const { embedded, entries } = await this.store.embeddingProgress(this.model);
    this.log.info(done ? 'embeddings: every entry has a vector' : 'embeddings: backfilling', {
      model: this.model,
      embedded,
      entries,
    });
  }

  private failed(error: Error): void {
    if (this.outage) return;
    this.outage = true;
    this.log.warn('embeddings provider unavailable; search ranks with the offline word vectors until it answers', {
      model: this.model,
      error: error.message,
    });
  }

  private recovered(): void {
    if (!this.outage) return;
    this.outage = false;
    this.log.info('embeddings provider answers again', { model: this.model });
    // The backlog of the outage resumes now, not at the next retry.
    this.notify();
  }

  /** Waits `pause`, cut short by a write (during an outage, noticed within a second). */
  private async waitForWork(pause: number): Promise<void> {
    const until = Date.now() + pause;
    while (!this.stopped && !this.dirty && Date.now() < until)
      await this.sleep(this.outage ? Math.min(RETRY_AFTER_WRITE_MS, until - Date.now()) : until - Date.now());
    this.dirty = false;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

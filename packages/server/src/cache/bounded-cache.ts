/**
 * A Map bounded by the total size of what it holds, oldest in first out: each value counts 1 (a
 * bound on entries), or what `sizeOf` says. Search's caches all use it. Its reads are a Map's:
 * lru-cache's `get` cost about a microsecond each here (an options object and diagnostics-channel
 * checks per call), 4% of a search, which reads a dozen.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  /** Each value's size, when sizes are not all 1. */
  private readonly sizes: Map<K, number> | undefined;
  private total = 0;

  constructor(
    readonly maxSize: number,
    private readonly sizeOf?: (value: V) => number,
    /** The largest value kept; a larger one is not stored (and replaces nothing). */
    private readonly maxEntrySize = maxSize,
  ) {
    this.sizes = sizeOf ? new Map() : undefined;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Keeps the value under the key (replacing what it held), pushing out the oldest until it fits; a value over maxEntrySize is not kept and the key holds nothing. */
  set(key: K, value: V): void {
    this.delete(key);
    const size = this.sizeOf ? this.sizeOf(value) : 1;
    if (size > this.maxEntrySize) return;
    while (this.total + size > this.maxSize) this.delete(this.map.keys().next().value!);
    this.map.set(key, value);
    this.sizes?.set(key, size);
    this.total += size;
  }

  delete(key: K): void {
    if (!this.map.delete(key)) return;
    const size = this.sizes ? this.sizes.get(key)! : 1;
    this.sizes?.delete(key);
    this.total -= size;
  }

  clear(): void {
    this.map.clear();
    this.sizes?.clear();
    this.total = 0;
  }

  /** How many values are held. */
  get size(): number {
    return this.map.size;
  }

  /** The sum of the held values' sizes. */
  get heldSize(): number {
    return this.total;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }
}

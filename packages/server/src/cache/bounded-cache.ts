/**
 * A Map bounded by the total size of what it holds, least recently used out first: each value
 * counts 1 (a bound on entries), or what `sizeOf` says; `get` and `set` make a key the most recent
 * (`has` does not). Search's caches all use it. Its reads are a Map's: lru-cache's `get` builds an
 * options object and checks diagnostics channels per call, a share of a search, which reads a dozen
 * (docs/benchmarks.md).
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  /** Each value's size, when sizes are not all 1. */
  private readonly sizes: Map<K, number> | undefined;
  private total = 0;
  /** The key used last: reading it again need not move it. */
  private newest: K | undefined;

  constructor(
    readonly maxSize: number,
    private readonly sizeOf?: (value: V) => number,
    /** The largest value kept; a larger one is not stored (and replaces nothing). */
    private readonly maxEntrySize = maxSize,
  ) {
    this.sizes = sizeOf ? new Map() : undefined;
  }

  /** The value under the key, if held; a hit makes the key the most recently used. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined || key === this.newest) return value;
    // A Map iterates in insertion order: inserting the key again moves it to the end, the newest.
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    return value;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Keeps the value under the key (replacing what it held), pushing out the least recently used until it fits; a value over maxEntrySize is not kept and the key holds nothing. */
  set(key: K, value: V): void {
    this.delete(key);
    const size = this.sizeOf ? this.sizeOf(value) : 1;
    if (size > this.maxEntrySize) return;
    while (this.total + size > this.maxSize) this.delete(this.map.keys().next().value!);
    this.map.set(key, value);
    this.newest = key;
    this.sizes?.set(key, size);
    this.total += size;
  }

  delete(key: K): void {
    if (!this.map.delete(key)) return;
    if (key === this.newest) this.newest = undefined;
    const size = this.sizes ? this.sizes.get(key)! : 1;
    this.sizes?.delete(key);
    this.total -= size;
  }

  clear(): void {
    this.map.clear();
    this.newest = undefined;
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

/**
 * A token bucket per key, in memory: each instance enforces it on its own share of the traffic,
 * which is what protects that instance and its database connections.
 */
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes `cost` tokens for `key`; returns 0 when allowed, else the seconds to wait. */
  take(key: string, cost = 1): number {
    const now = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    return Math.ceil(((cost - bucket.tokens) / this.perMinute) * 60);
  }
}

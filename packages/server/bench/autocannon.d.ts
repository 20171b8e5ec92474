/** The part of autocannon@9's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Per-request shaping: each request is built from these, in turn; setupRequest may change its body or path. */
    requests?: {
      method?: 'GET' | 'POST';
      setupRequest?: (request: { body?: string; path?: string }) => { body?: string; path?: string };
    }[];
    /** Counts a response whose body fails it as a mismatch. */
    verifyBody?: (body: string) => boolean;
  }

  interface Stats {
    average: number;
    mean: number;
    total: number;
    p50: number;
    p99: number;
  }

  interface Result {
    duration: number;
    requests: Stats;
    latency: Stats;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    '2xx': number;
  }

  /** Emits 'response' (client, statusCode, bytes, responseTimeMs) for every response; resolves with the result. */
  interface Instance extends EventEmitter, PromiseLike<Result> {}

  function autocannon(options: Options): Instance;
  export default autocannon;
}

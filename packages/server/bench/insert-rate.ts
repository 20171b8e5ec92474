/**
 * The JSON API's save rate: `connections` clients POST /api/v1/entries for `seconds`, each request a
 * new entry into the caller's personal datapack, so every save runs the full duplicate checks
 * (exact hash, then the lexical near-duplicate search of that datapack) before it inserts.
 */
import autocannon from 'autocannon';
import { percentile, round1 } from '../measure/percentile.js';

export interface InsertRun {
  insertsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  created: number;
  /** Answered 200 "duplicate": the near-duplicate check took a body for an earlier entry. */
  duplicates: number;
  non2xx: number;
  failures: number;
}

export interface InsertTurn {
  title: string;
  content: string;
}

/**
 * Realistic, distinct entries: two LoCoMo turns joined (a different pairing on each pass over the
 * turns), under a numbered title. The benchmark user already holds most single turns, and a lone
 * turn with a number added would be taken for a near-duplicate of it.
 */
export function entryBodies(turns: InsertTurn[]): () => string {
  let n = 0;
  return () => {
    const first = turns[n % turns.length]!;
    const second = turns[(n + 997 + Math.floor(n / turns.length) * 131) % turns.length]!;
    const body = JSON.stringify({
      kind: 'note',
      title: `Note ${n}: ${first.title}`,
      content: `${first.content} Later: ${second.content} (note ${n})`,
    });
    n++;
    return body;
  };
}

export async function measureInserts(
  url: string,
  key: string,
  turns: InsertTurn[],
  connections: number,
  seconds: number,
): Promise<InsertRun> {
  const next = entryBodies(turns);
  let duplicates = 0;
  const instance = autocannon({
    url,
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: next(),
    requests: [{ setupRequest: (request: { body?: string }) => ({ ...request, body: next() }) }],
    connections,
    duration: seconds,
    verifyBody: (body: string) => {
      if (body.includes('"status":"duplicate"')) duplicates++;
      return body.includes('"status":"created"') || body.includes('"status":"duplicate"');
    },
  });
  // autocannon's own histogram has whole-millisecond buckets; these are exact.
  const latencies: number[] = [];
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const ok = result['2xx'] - result.mismatches;
  return {
    insertsPerSec: Math.round(((ok - duplicates) / result.duration) * 10) / 10,
    p50Ms: round1(percentile(latencies, 0.5)),
    p99Ms: round1(percentile(latencies, 0.99)),
    created: ok - duplicates,
    duplicates,
    non2xx: result.non2xx,
    failures: result.errors + result.timeouts + result.mismatches,
  };
}

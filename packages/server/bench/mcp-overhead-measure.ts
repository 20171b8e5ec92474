// Load, rounds and the report of bench/mcp-overhead.ts.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { percentile } from '../measure/percentile.js';
import { type CpuProfile, type ProfileSummary, summarizeProfile } from './cpu-profile.js';
import type { Options } from './mcp-overhead-options.js';
import { ask, type Child, type Target } from './mcp-overhead-targets.js';

export interface Run {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  /** The server process's CPU time per request served: steadier than req/s on a shared machine. */
  cpuMsPerRequest: number;
}

export interface Row extends Run {
  target: string;
  /** Baseline req/s ÷ this target's req/s: how many times fewer requests it serves. */
  reqPerSecSlowdown: number;
  /** This target's p50 ÷ the baseline's p50. */
  p50Slowdown: number;
  runs: Run[];
}

// ---- measuring -------------------------------------------------------------------------------

export async function load(target: Target, options: Options, seconds: number): Promise<Run> {
  const cpuBefore = await cpuOf(target.server);
  const instance = autocannon({
    url: target.url,
    method: target.method ?? 'POST',
    headers: target.headers,
    ...(target.method !== 'GET' && { body: target.body }),
    ...(target.uniqueBody && {
      requests: [{ setupRequest: (request: { body?: string }) => ({ ...request, body: target.uniqueBody!() }) }],
    }),
    ...(target.uniquePath && {
      requests: [{ setupRequest: (request: { path?: string }) => ({ ...request, path: target.uniquePath!() }) }],
    }),
    connections: options.connections,
    duration: seconds,
    verifyBody: target.looksRight,
  });
  // autocannon's own histogram has whole-millisecond buckets, too coarse for a sub-millisecond baseline.
  const latencies: number[] = [];
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  const cpuMs = ((await cpuOf(target.server)) - cpuBefore) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    reqPerSec: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    cpuMsPerRequest: result.requests.total ? cpuMs / result.requests.total : Number.NaN,
  };
}

/** Runs every target once per round, interleaved, so slow drift on a shared machine hits all of them alike. */
export async function measureAll(targets: Target[], options: Options): Promise<Run[][]> {
  const runs: Run[][] = targets.map(() => []);
  for (let round = 1; round <= options.rounds; round++) {
    for (const i of roundOrder(targets, round)) {
      const target = targets[i]!;
      process.stderr.write(`round ${round}/${options.rounds}: ${target.name} … `);
      if (options.warmup > 0) await load(target, options, options.warmup);
      const run = await load(target, options, options.duration);
      runs[i]!.push(run);
      process.stderr.write(`${Math.round(run.reqPerSec)} req/s\n`);
    }
  }
  return runs;
}

/**
 * The order of a round: with --compare, a target and its counterpart on the other build take turns
 * going first, round by round. Whichever build ran first measured 5–10% more CPU per call than the
 * other, with the two builds' roles swapped too, so a fixed order showed a gap that was not there.
 */
export function roundOrder(targets: Target[], round: number): number[] {
  const order = targets.map((_, i) => i);
  if (round % 2 === 1) return order;
  for (let i = 0; i + 1 < order.length; i++) {
    if (targets[i + 1]!.name !== `before: ${targets[i]!.name}`) continue;
    [order[i], order[i + 1]] = [i + 1, i];
    i++;
  }
  return order;
}

export function toRows(targets: Target[], runs: Run[][]): Row[] {
  const combined = runs.map(combineRounds);
  const base = combined[0]!;
  return targets.map((target, i) => ({
    target: target.name,
    ...combined[i]!,
    reqPerSecSlowdown: round2(base.reqPerSec / combined[i]!.reqPerSec),
    p50Slowdown: round2(combined[i]!.p50Ms / base.p50Ms),
    runs: runs[i]!,
  }));
}

/** Median of each rate and latency over the rounds; failure counts add up. */
export function combineRounds(runs: Run[]): Run {
  const sum = (pick: (r: Run) => number) => runs.reduce((n, r) => n + pick(r), 0);
  return {
    reqPerSec: Math.round(median(runs.map((r) => r.reqPerSec))),
    p50Ms: round2(median(runs.map((r) => r.p50Ms))),
    p99Ms: round2(median(runs.map((r) => r.p99Ms))),
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    mismatches: sum((r) => r.mismatches),
    cpuMsPerRequest: Math.round(median(runs.map((r) => r.cpuMsPerRequest)) * 1000) / 1000,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export async function profileTarget(cairn: Child, target: Target, options: Options): Promise<ProfileSummary> {
  await load(target, options, options.warmup);
  await ask(cairn, { type: 'profile-start' }, 'profile-started');
  await load(target, options, options.profileSeconds);
  await ask(cairn, { type: 'profile-stop', path: options.profileOut }, 'profile-saved');
  return summarizeProfile(JSON.parse(readFileSync(options.profileOut, 'utf8')) as CpuProfile);
}

// ---- reporting -------------------------------------------------------------------------------

export function printTable(rows: Row[]): void {
  const header = [
    'target',
    'req/s',
    'p50 ms',
    'p99 ms',
    'server CPU ms/req',
    'non-2xx',
    'errors',
    'req/s ×slower',
    'p50 ×slower',
  ];
  const lines = rows.map((r) => [
    r.target,
    String(r.reqPerSec),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    r.cpuMsPerRequest.toFixed(3),
    String(r.non2xx),
    String(r.errors + r.timeouts + r.mismatches),
    r.reqPerSecSlowdown.toFixed(2),
    r.p50Slowdown.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, ...lines])
    console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
}

export function printProfile(target: string, summary: ProfileSummary, path: string): void {
  console.log(
    `\nCPU profile of the Cairn process under ${target} (${path}); busy ${summary.busyMs} ms, idle ${summary.idleMs} ms`,
  );
  console.log('self time by package:');
  for (const p of summary.packages.slice(0, 10)) console.log(`  ${p.percent.toFixed(1).padStart(5)}%  ${p.name}`);
  console.log('top self-time functions:');
  for (const f of summary.functions) console.log(`  ${f.percent.toFixed(1).padStart(5)}%  ${f.name}`);
}

export function verdict(rows: Row[]): string {
  const search = rows.find((r) => r.target === 'tools/call search')!;
  const echo = rows.find((r) => r.target.startsWith('anchor: stock SDK'))!;
  const bare = rows[0]!;
  const vsEcho = search.reqPerSec / echo.reqPerSec;
  const vsBare = search.reqPerSec / bare.reqPerSec;
  const cpuVsEcho = search.cpuMsPerRequest / echo.cpuMsPerRequest;
  const earlier = rows.find((r) => r.target === 'before: tools/call search');
  return [
    ...(earlier
      ? [
          `before: MCP search ${(earlier.reqPerSec / echo.reqPerSec).toFixed(2)}× the echo's req/s, ${(earlier.cpuMsPerRequest / echo.cpuMsPerRequest).toFixed(2)}× its server CPU per call`,
        ]
      : []),
    `MCP search: ${vsEcho.toFixed(2)}× the stock SDK echo's req/s (target ≥ 1.00: ${vsEcho >= 1 ? 'met' : 'NOT met'}), ${cpuVsEcho.toFixed(2)}× its server CPU per call`,
    `${(100 * vsBare).toFixed(1)}% of bare Hono's req/s (target ≥ 10%: ${vsBare >= 0.1 ? 'met' : 'NOT met'})`,
  ].join('; ');
}

/** The child's CPU time so far, in microseconds. */
export async function cpuOf(child: Child): Promise<number> {
  const reply = await ask(child, { type: 'cpu' }, 'cpu');
  return reply.type === 'cpu' ? reply.micros : Number.NaN;
}

/** The child's resident memory, in MB. */
export async function rssOf(child: Child): Promise<number> {
  const reply = await ask(child, { type: 'rss' }, 'rss');
  return reply.type === 'rss' ? reply.rssMb : Number.NaN;
}

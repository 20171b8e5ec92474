/**
 * What the MCP path costs: tools/call on Cairn's /mcp against a bare Hono JSON endpoint, on the
 * same machine in one run. Each server runs in its own child process (bench/servers.ts); the load
 * generator (autocannon) stays in this one. Cairn runs from its build (dist/, as `npm start` runs
 * it; `npm run build` first), or from its sources through tsx with --source.
 *
 *   npm run bench -w @cairn/server -- [--duration 10] [--warmup 3] [--connections 10] [--rounds 1]
 *     [--entries 2000] [--query "..."] [--backend sqlite|postgres --database-url <server url>] [--source]
 *     [--out results.json] [--profile search [--profile-seconds 5] [--profile-out file.cpuprofile]]
 *     [--compare <checkout>]   (also runs another checkout's build, e.g. an older commit's worktree,
 *                               its MCP calls interleaved with this one's as "before: …" rows)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadLocomo } from '../eval/locomo.js';
import { INSTALLER_USER_AGENT } from '../src/auth/mcp-auth.js';
import { type CpuProfile, type ProfileSummary, summarizeProfile } from './cpu-profile.js';
import { percentile } from './percentile.js';
import type { CairnChildOptions, ChildMessage, ParentMessage, SeedReport } from './servers.js';

const PROTOCOL_VERSION = '2025-06-18';

interface Options {
  /** Cairn from its sources through tsx instead of its build (dist/). */
  source: boolean;
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  entries: number;
  /** One query for every search, or undefined: each request asks the next LoCoMo question. */
  query?: string;
  questions: string[];
  backend: 'sqlite' | 'postgres';
  databaseUrl?: string;
  dataPath: string;
  out?: string;
  profile?: string;
  profileSeconds: number;
  profileOut: string;
  compare?: string;
}

interface Target {
  name: string;
  /** The process serving it, asked for its CPU time around each load. */
  server: Child;
  /** Defaults to POST. */
  method?: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Full check of one response, run once before load: a reason it is wrong, or undefined. */
  check(status: number, contentType: string, text: string): string | undefined;
  /** Cheap check autocannon applies to every response under load. */
  looksRight(body: string): boolean;
  /** A fresh body for each request under load (a write must not repeat itself, a search asks the next question). */
  uniqueBody?: () => string;
  /** A fresh path for each GET under load. */
  uniquePath?: () => string;
}

interface Run {
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

interface Row extends Run {
  target: string;
  /** Baseline req/s ÷ this target's req/s: how many times fewer requests it serves. */
  reqPerSecSlowdown: number;
  /** This target's p50 ÷ the baseline's p50. */
  p50Slowdown: number;
  runs: Run[];
}

async function parseOptions(): Promise<Options> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '1' },
      entries: { type: 'string', default: '2000' },
      query: { type: 'string' },
      backend: { type: 'string', default: 'sqlite' },
      'database-url': { type: 'string' },
      source: { type: 'boolean', default: false },
      // The shared folder sits beside the repository: <repo>/../shared/data.
      data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
      out: { type: 'string' },
      profile: { type: 'string' },
      'profile-seconds': { type: 'string', default: '5' },
      'profile-out': { type: 'string' },
      compare: { type: 'string' },
    },
  });
  const backend = values.backend;
  if (backend !== 'sqlite' && backend !== 'postgres') throw new Error(`--backend must be sqlite or postgres, not ${backend}`);
  if (backend === 'postgres' && !values['database-url']) throw new Error('--backend postgres needs --database-url <postgres server url>');
  return {
    duration: Number(values.duration),
    warmup: Number(values.warmup),
    connections: Number(values.connections),
    rounds: Number(values.rounds),
    entries: Number(values.entries),
    query: values.query,
    // Every question of the file, in order: searches meet many words, as an agent's do, not one cached query.
    questions: values.query ? [values.query] : (await loadLocomo(values.data)).flatMap((c) => c.questions.map((q) => q.question)),
    backend,
    databaseUrl: values['database-url'],
    source: values.source ?? false,
    dataPath: values.data,
    out: values.out,
    profile: values.profile,
    compare: values.compare,
    profileSeconds: Number(values['profile-seconds']),
    profileOut: values['profile-out'] ?? join(tmpdir(), `cairn-bench-${values.profile?.replace(/\W+/g, '-')}-${Date.now()}.cpuprofile`),
  };
}

// ---- child processes -------------------------------------------------------------------------

interface Child {
  process: ChildProcess;
  ready: Extract<ChildMessage, { type: 'ready' }>;
}

function startChild(args: string[]): Promise<Child> {
  const child = fork(new URL('./servers.ts', import.meta.url), args, { execArgv: ['--import', 'tsx'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server process ${args[0]} exited (code ${code}) before it was ready`)));
    child.once('message', (message: ChildMessage) => {
      if (message.type === 'ready') resolve({ process: child, ready: message });
      else reject(new Error(`server process ${args[0]} failed: ${message.type === 'failed' ? message.message : message.type}`));
    });
  });
}

function ask(child: Child, message: ParentMessage, answer: ChildMessage['type']): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    child.process.once('message', (reply: ChildMessage) => {
      if (reply.type === answer) resolve(reply);
      else reject(new Error(`server process answered ${reply.type}: ${reply.type === 'failed' ? reply.message : ''}`));
    });
    child.process.send(message);
  });
}

async function stopChild(child: Child | undefined): Promise<void> {
  if (!child || child.process.exitCode !== null) return;
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.send({ type: 'close' } satisfies ParentMessage);
  const timer = setTimeout(() => child.process.kill(), 15_000);
  await exited;
  clearTimeout(timer);
}

// ---- targets ---------------------------------------------------------------------------------

/** Each call the next of the options' questions, round and round. */
function nextQuestion(options: Options): () => string {
  let i = 0;
  return () => options.questions[i++ % options.questions.length]!;
}

function baselineTarget(baseline: Child): Target {
  return {
    name: 'baseline (bare Hono JSON)',
    server: baseline,
    url: baseline.ready.url,
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
    check: (status, _type, text) => (status === 200 && text === '{"ok":true}' ? undefined : `status ${status}, body ${text}`),
    looksRight: (body) => body === '{"ok":true}',
  };
}

/** The stock SDK v2 handler with a trivial echo tool: the floor for any MCP tool call on this machine. */
function sdkEchoTarget(echo: Child): Target {
  return {
    name: 'anchor: stock SDK v2 echo (tools/call)',
    server: echo,
    url: echo.ready.url,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } }),
    check: (status, type, text) => checkMcpResponse(status, type, text, (r) => (r.content?.[0]?.text === 'hello' ? undefined : `unexpected echo ${JSON.stringify(r)}`)),
    looksRight: (body) => body.includes('"result"') && body.includes('hello'),
  };
}

/** The same search through the JSON API: the domain work without the MCP layer, to isolate MCP's own cost. */
function jsonApiSearchTarget(cairn: Child, options: Options): Target {
  const url = new URL('/api/v1/search', cairn.ready.url);
  const question = nextQuestion(options);
  url.searchParams.set('q', options.questions[0]!);
  return {
    name: 'JSON API search (no MCP)',
    server: cairn,
    method: 'GET',
    url: url.toString(),
    uniquePath: () => `/api/v1/search?q=${encodeURIComponent(question())}`,
    headers: { Authorization: `Bearer ${cairn.ready.key}` },
    body: '',
    check: (status, _type, text) => {
      const hits = status === 200 ? ((JSON.parse(text) as { results?: unknown[] }).results?.length ?? 0) : 0;
      return hits >= 3 ? undefined : `status ${status}, ${hits} results: ${text.slice(0, 300)}`;
    },
    looksRight: (body) => body.startsWith('{"results":['),
  };
}

function mcpTargets(cairn: Child, options: Options, prefix = ''): Target[] {
  const { url, key, seed } = cairn.ready;
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    Authorization: `Bearer ${key}`,
    'User-Agent': INSTALLER_USER_AGENT,
  };
  const target = (name: string, method: string, params: unknown, check: (result: any) => string | undefined): Target => ({
    name: `${prefix}${name}`,
    server: cairn,
    url,
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    check: (status, type, text) => checkMcpResponse(status, type, text, check),
    // A tool failure is still a 200 with a result, so look for the flag as well.
    looksRight: (body) => body.includes('"result"') && !body.includes('"isError":true'),
  });
  return [
    target('initialize', 'initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'cairn-bench', version: '1.0.0' } }, (r) =>
      r.serverInfo?.name === 'cairn' ? undefined : `unexpected initialize result ${JSON.stringify(r).slice(0, 300)}`,
    ),
    target('tools/call list_datapacks', 'tools/call', { name: 'list_datapacks', arguments: {} }, (r) => {
      const total = (r.structuredContent?.datapacks ?? []).reduce((n: number, d: { entryCount: number }) => n + d.entryCount, 0);
      return total === seed?.created ? undefined : `list_datapacks counts ${total} entries, ${seed?.created} were seeded`;
    }),
    {
      ...target('tools/call search', 'tools/call', { name: 'search', arguments: { query: options.questions[0] } }, (r) => {
        const hits = r.structuredContent?.results?.length ?? 0;
        return hits >= 3 ? undefined : `search "${options.questions[0]}" found ${hits} entries; pick a --query that matches several`;
      }),
      uniqueBody: toolCall('search', 'query', nextQuestion(options)),
    },
    {
      ...target('tools/call get_guidance', 'tools/call', { name: 'get_guidance', arguments: { task: options.questions[0] } }, (r) =>
        r.structuredContent ? undefined : `get_guidance gave no structured result ${JSON.stringify(r).slice(0, 300)}`,
      ),
      uniqueBody: toolCall('get_guidance', 'task', nextQuestion(options)),
    },
    {
      ...target('tools/call save_entry', 'tools/call', { name: 'save_entry', arguments: { kind: 'note', title: 'Benchmark note 0', content: 'A note saved by the benchmark, number 0.' } }, (r) =>
        r.structuredContent?.entry?.id ? undefined : `save_entry saved nothing ${JSON.stringify(r).slice(0, 300)}`,
      ),
      // Each saved note differs in more than a number, so none is refused as a near-duplicate of another.
      uniqueBody: () => {
        const n = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
        return JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'save_entry', arguments: { kind: 'note', title: `Benchmark ${n}`, content: `Saved under load as ${n} ${n.split('').reverse().join('')}.` } },
        });
      },
    },
  ];
}

/** A tools/call body per request whose one argument is the next text. */
function toolCall(name: string, argument: string, text: () => string): () => string {
  return () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { [argument]: text() } } });
}

function checkMcpResponse(status: number, contentType: string, text: string, check: (result: any) => string | undefined): string | undefined {
  if (status !== 200) return `status ${status}: ${text.slice(0, 500)}`;
  // The stateless handler may answer as JSON or as one SSE event; accept both.
  const json = contentType.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
        .pop()
    : text;
  const message = JSON.parse(json ?? 'null');
  if (!message?.result) return `not a JSON-RPC result: ${text.slice(0, 500)}`;
  if (message.result.isError) return `tool error: ${JSON.stringify(message.result.content).slice(0, 500)}`;
  return check(message.result);
}

async function verify(target: Target): Promise<void> {
  const response = await fetch(target.url, { method: target.method ?? 'POST', headers: target.headers, ...(target.method !== 'GET' && { body: target.body }) });
  const text = await response.text();
  const problem = target.check(response.status, response.headers.get('content-type') ?? '', text);
  if (problem) throw new Error(`${target.name} does not answer correctly, refusing to benchmark it: ${problem}`);
  if (!target.looksRight(text)) throw new Error(`${target.name}: a correct response fails the under-load check: ${text.slice(0, 300)}`);
}

// ---- measuring -------------------------------------------------------------------------------

async function load(target: Target, options: Options, seconds: number): Promise<Run> {
  const cpuBefore = await cpuOf(target.server);
  const instance = autocannon({
    url: target.url,
    method: target.method ?? 'POST',
    headers: target.headers,
    ...(target.method !== 'GET' && { body: target.body }),
    ...(target.uniqueBody && { requests: [{ setupRequest: (request: { body?: string }) => ({ ...request, body: target.uniqueBody!() }) }] }),
    ...(target.uniquePath && { requests: [{ setupRequest: (request: { path?: string }) => ({ ...request, path: target.uniquePath!() }) }] }),
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
async function measureAll(targets: Target[], options: Options): Promise<Run[][]> {
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
function roundOrder(targets: Target[], round: number): number[] {
  const order = targets.map((_, i) => i);
  if (round % 2 === 1) return order;
  for (let i = 0; i + 1 < order.length; i++) {
    if (targets[i + 1]!.name !== `before: ${targets[i]!.name}`) continue;
    [order[i], order[i + 1]] = [i + 1, i];
    i++;
  }
  return order;
}

function toRows(targets: Target[], runs: Run[][]): Row[] {
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
function combineRounds(runs: Run[]): Run {
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

async function profileTarget(cairn: Child, target: Target, options: Options): Promise<ProfileSummary> {
  await load(target, options, options.warmup);
  await ask(cairn, { type: 'profile-start' }, 'profile-started');
  await load(target, options, options.profileSeconds);
  await ask(cairn, { type: 'profile-stop', path: options.profileOut }, 'profile-saved');
  return summarizeProfile(JSON.parse(readFileSync(options.profileOut, 'utf8')) as CpuProfile);
}

// ---- reporting -------------------------------------------------------------------------------

function printTable(rows: Row[]): void {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'non-2xx', 'errors', 'req/s ×slower', 'p50 ×slower'];
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
  for (const line of [header, ...lines]) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
}

function printProfile(target: string, summary: ProfileSummary, path: string): void {
  console.log(`\nCPU profile of the Cairn process under ${target} (${path}); busy ${summary.busyMs} ms, idle ${summary.idleMs} ms`);
  console.log('self time by package:');
  for (const p of summary.packages.slice(0, 10)) console.log(`  ${p.percent.toFixed(1).padStart(5)}%  ${p.name}`);
  console.log('top self-time functions:');
  for (const f of summary.functions) console.log(`  ${f.percent.toFixed(1).padStart(5)}%  ${f.name}`);
}

function verdict(rows: Row[]): string {
  const search = rows.find((r) => r.target === 'tools/call search')!;
  const echo = rows.find((r) => r.target.startsWith('anchor: stock SDK'))!;
  const bare = rows[0]!;
  const vsEcho = search.reqPerSec / echo.reqPerSec;
  const vsBare = search.reqPerSec / bare.reqPerSec;
  const cpuVsEcho = search.cpuMsPerRequest / echo.cpuMsPerRequest;
  const earlier = rows.find((r) => r.target === 'before: tools/call search');
  return [
    ...(earlier
      ? [`before: MCP search ${(earlier.reqPerSec / echo.reqPerSec).toFixed(2)}× the echo's req/s, ${(earlier.cpuMsPerRequest / echo.cpuMsPerRequest).toFixed(2)}× its server CPU per call`]
      : []),
    `MCP search: ${vsEcho.toFixed(2)}× the stock SDK echo's req/s (target ≥ 1.00: ${vsEcho >= 1 ? 'met' : 'NOT met'}), ${cpuVsEcho.toFixed(2)}× its server CPU per call`,
    `${(100 * vsBare).toFixed(1)}% of bare Hono's req/s (target ≥ 10%: ${vsBare >= 0.1 ? 'met' : 'NOT met'})`,
  ].join('; ');
}

/** The child's CPU time so far, in microseconds. */
async function cpuOf(child: Child): Promise<number> {
  const reply = await ask(child, { type: 'cpu' }, 'cpu');
  return reply.type === 'cpu' ? reply.micros : Number.NaN;
}

/** The child's resident memory, in MB. */
async function rssOf(child: Child): Promise<number> {
  const reply = await ask(child, { type: 'rss' }, 'rss');
  return reply.type === 'rss' ? reply.rssMb : Number.NaN;
}

// ---- main ------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = await parseOptions();
  const startLoad = loadavg();
  let baseline: Child | undefined;
  let echo: Child | undefined;
  let cairn: Child | undefined;
  let before: Child | undefined;
  try {
    const cairnOptions: CairnChildOptions = { postgresServerUrl: options.databaseUrl, entries: options.entries, dataPath: options.dataPath, source: options.source };
    [baseline, echo, cairn, before] = await Promise.all([
      startChild(['baseline']),
      startChild(['sdk-echo']),
      startChild(['cairn', JSON.stringify(cairnOptions)]),
      options.compare ? startChild(['cairn', JSON.stringify({ ...cairnOptions, root: options.compare })]) : undefined,
    ]);
    const idleRss = await rssOf(cairn);
    const seed = cairn.ready.seed as SeedReport;
    process.stderr.write(`seeded ${seed.created} entries into ${seed.datapacks} datapacks in ${seed.seconds}s (${options.backend})\n`);
    const earlier = before ? mcpTargets(before, options, 'before: ') : [];
    // Each target beside its counterpart on the other build, so that measureAll can alternate which goes first.
    const mcp = mcpTargets(cairn, options).flatMap((t, i) => (earlier[i] ? [t, earlier[i]] : [t]));
    const writes = (t: Target) => t.name.endsWith('save_entry');
    // Both builds save in every round, after all reads: each round's reads then search as many entries on either.
    const targets = [baselineTarget(baseline), sdkEchoTarget(echo), jsonApiSearchTarget(cairn, options), ...mcp.filter((t) => !writes(t)), ...mcp.filter(writes)];
    for (const target of targets) await verify(target);

    const rows = toRows(targets, await measureAll(targets, options));
    const profiled = options.profile ? targets.find((t) => t.name.includes(options.profile!)) : undefined;
    if (options.profile && !profiled) throw new Error(`--profile ${options.profile} names no target`);
    const profile = profiled && (await profileTarget(cairn, profiled, options));

    const meta = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      loadavgBefore: startLoad,
      loadavgAfter: loadavg(),
      backend: options.backend,
      durationSeconds: options.duration,
      warmupSeconds: options.warmup,
      connections: options.connections,
      rounds: options.rounds,
      seeded: seed,
      query: options.query ?? `${options.questions.length} LoCoMo questions in turn`,
      argv: process.argv.slice(2),
    };
    console.log(
      `\nCairn MCP overhead — ${options.backend}, ${seed.created} entries, ${options.connections} connections, ${options.duration}s × ${options.rounds} round(s), node ${process.version}, ${meta.cpus} CPUs, load ${startLoad.map((l) => l.toFixed(2)).join(' ')}`,
    );
    printTable(rows);
    console.log(verdict(rows));
    const loadedRss = await rssOf(cairn);
    console.log(`Cairn RSS: ${idleRss} MB idle (seeded), ${loadedRss} MB after the load above; stock SDK echo server: ${await rssOf(echo)} MB`);
    if (profile) printProfile(profiled.name, profile, options.profileOut);
    if (options.out) writeFileSync(options.out, `${JSON.stringify({ meta, results: rows, verdict: verdict(rows), profile }, null, 2)}\n`);
  } finally {
    await Promise.all([stopChild(baseline), stopChild(echo), stopChild(cairn), stopChild(before)]);
  }
}

main().catch((error: Error) => {
  console.error(`\nBENCHMARK ABORTED: ${error.message}`);
  process.exitCode = 1;
});

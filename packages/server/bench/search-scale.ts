/**
 * One user's search as the database grows with other tenants' entries. A real Cairn runs in a
 * child process (bench/servers.ts) with one user holding `--entries` LoCoMo turns (saved through
 * the domain layer); before each size the child fills the database with other tenants' entries
 * through a bulk path (bench/seed-others.ts) until it holds that many. At each size this process
 * sends `--searches` sequential MCP `tools/call search` requests, one LoCoMo question each
 * (p50/p95/p99), then loads one question with autocannon at `--connections` (req/s, p99) while
 * probing /healthz every 20 ms from another process (its p99: a search must not stall the probe).
 * Then 8 clients (`--insert-connections`) save new entries into that user's personal datapack
 * through POST /api/v1/entries for `--insert-seconds` (bench/insert-rate.ts): inserts/s and p50/p99,
 * compared with the smallest size's rate. Those entries are deleted again before the next size.
 * Cairn runs from its build (dist/, as `npm start` runs it), or from its sources with --source.
 *
 *   npm run bench:scale -w @cairn/server -- --scale 10k,100k [--backend sqlite|postgres
 *     --database-url <postgres server url>] [--entries 2000] [--searches 200] [--duration 10]
 *     [--connections 10] [--insert-seconds 10] [--insert-connections 8] [--per-tenant 2000]
 *     [--data <locomo.json>] [--json] [--source]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BACKEND_OPTIONS, backendOf } from '../measure/cli-options.js';
import { loadQuestions, loadTurns } from '../measure/locomo.js';
import { percentile, round1 } from '../measure/percentile.js';
import { INSTALLER_USER_AGENT } from '../src/auth/mcp-auth.js';
import { probeHealthz } from './healthz-probe.js';
import { type InsertRun, measureInserts } from './insert-rate.js';
import { runFacts } from './run-facts.js';
import type { CairnChildOptions, ChildMessage, ParentMessage } from './servers.js';

const PROTOCOL_VERSION = '2025-06-18';

interface Options {
  /** Cairn from its sources through tsx instead of its build (dist/). */
  source: boolean;
  sizes: number[];
  backend: 'sqlite' | 'postgres';
  databaseUrl?: string;
  entries: number;
  searches: number;
  duration: number;
  connections: number;
  insertSeconds: number;
  insertConnections: number;
  perTenant: number;
  dataPath: string;
  json: boolean;
}

function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`--scale takes sizes such as 10k,100k,1m, not "${text}"`);
  return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1));
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '10k,100k' },
      ...BACKEND_OPTIONS,
      source: { type: 'boolean', default: false },
      entries: { type: 'string', default: '2000' },
      searches: { type: 'string', default: '200' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      'insert-seconds': { type: 'string', default: '10' },
      'insert-connections': { type: 'string', default: '8' },
      'per-tenant': { type: 'string', default: '2000' },
      // The shared folder sits beside the repository: <repo>/../shared/data, wherever the command runs from.
      data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
      json: { type: 'boolean', default: false },
    },
  });
  const { backend, databaseUrl } = backendOf(values);
  const sizes = values.scale
    .split(',')
    .map(parseSize)
    .sort((a, b) => a - b);
  // npm runs workspace scripts in the workspace folder; a relative path means the caller's folder.
  const base = process.env.INIT_CWD ?? process.cwd();
  return {
    sizes,
    backend,
    databaseUrl,
    source: values.source ?? false,
    entries: Number(values.entries),
    searches: Number(values.searches),
    duration: Number(values.duration),
    connections: Number(values.connections),
    insertSeconds: Number(values['insert-seconds']),
    insertConnections: Number(values['insert-connections']),
    perTenant: Number(values['per-tenant']),
    dataPath: isAbsolute(values.data) ? values.data : resolve(base, values.data),
    json: values.json,
  };
}

interface Child {
  process: ChildProcess;
  url: string;
  key: string;
  created: number;
}

function startCairn(options: CairnChildOptions): Promise<Child> {
  const child = fork(new URL('./servers.ts', import.meta.url), ['cairn', JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`Cairn process exited (code ${code}) before it was ready`)));
    child.once('message', (m: ChildMessage) => {
      if (m.type === 'ready' && m.key && m.seed)
        resolve({ process: child, url: m.url, key: m.key, created: m.seed.created });
      else reject(new Error(`Cairn process failed: ${m.type === 'failed' ? m.message : m.type}`));
    });
  });
}

function grow(child: Child, total: number, perTenant: number): Promise<Extract<ChildMessage, { type: 'grown' }>> {
  return new Promise((resolve, reject) => {
    const listen = (m: ChildMessage) => {
      if (m.type === 'seed-progress') process.stderr.write(`  seeding other tenants: ${m.done}/${m.goal}\n`);
      else {
        child.process.off('message', listen);
        if (m.type === 'grown') resolve(m);
        else reject(new Error(`seeding failed: ${m.type === 'failed' ? m.message : m.type}`));
      }
    };
    child.process.on('message', listen);
    child.process.send({ type: 'grow', total, perTenant } satisfies ParentMessage);
  });
}

function forget(child: Child, since: string): Promise<number> {
  return new Promise((resolve, reject) => {
    child.process.once('message', (m: ChildMessage) =>
      m.type === 'forgotten'
        ? resolve(m.removed)
        : reject(new Error(`forgetting the inserts failed: ${m.type === 'failed' ? m.message : m.type}`)),
    );
    child.process.send({ type: 'forget', since } satisfies ParentMessage);
  });
}

/** Inserts at this size, then removes them: the next size's user must hold what this one's held. */
async function inserts(
  child: Child,
  turns: { title: string; content: string }[],
  options: Options,
): Promise<InsertRun> {
  const since = new Date().toISOString();
  const run = await measureInserts(
    new URL('/api/v1/entries', child.url).href,
    child.key,
    turns,
    options.insertConnections,
    options.insertSeconds,
  );
  // Saves the server was still running when autocannon closed its connections land after the
  // first pass (PostgreSQL), so it forgets again until a pass two seconds later finds none.
  while ((await forget(child, since)) > 0) await new Promise((r) => setTimeout(r, 2000));
  return run;
}

function searchBody(query: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'search', arguments: { query, limit: 10 } },
  });
}

function headers(key: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    Authorization: `Bearer ${key}`,
    'User-Agent': INSTALLER_USER_AGENT,
  };
}

/** Sequential searches, one question each; every answer must be a successful tool result. */
async function sequential(child: Child, questions: string[], count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(child.url, {
      method: 'POST',
      headers: headers(child.key),
      body: searchBody(questions[i % questions.length]!),
    });
    const text = await response.text();
    latencies.push(performance.now() - started);
    if (response.status !== 200 || !text.includes('"result"') || text.includes('"isError":true'))
      throw new Error(`search answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return latencies.sort((a, b) => a - b);
}

async function underLoad(
  child: Child,
  query: string,
  options: Options,
): Promise<{ reqPerSec: number; loadP99Ms: number; healthzP99Ms: number; failures: number }> {
  // A load balancer's probe while the searches run: it must not wait behind them. Probed from a
  // process of its own, so autocannon's work in this one does not count against the server.
  const probing = probeHealthz(new URL('/healthz', child.url), options.duration);
  const result = await autocannon({
    url: child.url,
    method: 'POST',
    headers: headers(child.key),
    body: searchBody(query),
    connections: options.connections,
    duration: options.duration,
    verifyBody: (body: string) => body.includes('"result"') && !body.includes('"isError":true'),
  });
  const healthz = await probing;
  return {
    reqPerSec: Math.round(result.requests.average),
    loadP99Ms: result.latency.p99,
    healthzP99Ms: round1(percentile(healthz, 0.99)),
    failures: result.non2xx + result.errors + result.timeouts + result.mismatches,
  };
}

async function main(): Promise<void> {
  const options = parseOptions();
  const questions = await loadQuestions(options.dataPath);
  const turns = await loadTurns(options.dataPath);
  process.stderr.write(`starting Cairn (${options.backend}) with one user holding ${options.entries} entries …\n`);
  const child = await startCairn({
    postgresServerUrl: options.databaseUrl,
    entries: options.entries,
    dataPath: options.dataPath,
    source: options.source,
  });
  const rows = [];
  try {
    for (const size of options.sizes) {
      process.stderr.write(`growing the database to ${size} entries …\n`);
      const grown = await grow(child, size, options.perTenant);
      process.stderr.write(`  ${grown.total} entries (${grown.seconds}s); ${options.searches} sequential searches …\n`);
      await sequential(child, questions, 20);
      const latencies = await sequential(child, questions, options.searches);
      process.stderr.write(`  ${options.connections} connections for ${options.duration}s …\n`);
      const load = await underLoad(child, questions[0]!, options);
      process.stderr.write(`  ${options.insertConnections} clients saving entries for ${options.insertSeconds}s …\n`);
      const insert = await inserts(child, turns, options);
      rows.push({
        entries: grown.total,
        userEntries: child.created,
        p50Ms: round1(percentile(latencies, 0.5)),
        p95Ms: round1(percentile(latencies, 0.95)),
        p99Ms: round1(percentile(latencies, 0.99)),
        ...load,
        insert,
        seedSeconds: grown.seconds,
        rssMbAfterSeed: grown.rssMb,
      });
    }
  } finally {
    child.process.send({ type: 'close' } satisfies ParentMessage);
  }
  const meta = {
    ...runFacts(options.backend),
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
    searches: options.searches,
    connections: options.connections,
    durationSeconds: options.duration,
    insertConnections: options.insertConnections,
    insertSeconds: options.insertSeconds,
  };
  const smallest = rows[0]?.insert.insertsPerSec ?? NaN;
  const ratios = rows.map((r) => Math.round((smallest / r.insert.insertsPerSec) * 100) / 100);
  const insertVerdict = `insert rate at the largest size within 2× of the smallest: ${ratios[ratios.length - 1]! <= 2 ? 'met' : 'NOT met'}`;
  if (options.json) {
    console.log(
      JSON.stringify(
        {
          meta,
          rows: rows.map((r, i) => ({ ...r, insert: { ...r.insert, slowdownVsSmallest: ratios[i] } })),
          insertVerdict,
        },
        null,
        2,
      ),
    );
    return;
  }
  console.log(
    `\nOne user's MCP search (${child.created} entries of their own) as other tenants fill the database — ${options.backend}, ${options.searches} sequential searches, then ${options.connections} connections × ${options.duration}s; load ${meta.loadavg.join(' ')}`,
  );
  const header = ['entries in db', 'p50 ms', 'p95 ms', 'p99 ms', 'req/s', 'load p99 ms', '/healthz p99 ms', 'failures'];
  const lines = rows.map((r) => [
    String(r.entries),
    r.p50Ms.toFixed(1),
    r.p95Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    String(r.reqPerSec),
    String(r.loadP99Ms),
    r.healthzP99Ms.toFixed(1),
    String(r.failures),
  ]);
  table(header, lines);
  console.log(
    `\nSaving new entries into that user's personal datapack: POST /api/v1/entries, ${options.insertConnections} clients × ${options.insertSeconds}s`,
  );
  table(
    ['entries in db', 'inserts/s', 'p50 ms', 'p99 ms', 'duplicates', 'non-2xx', 'failures', 'smallest ÷ this'],
    rows.map((r, i) => [
      String(r.entries),
      r.insert.insertsPerSec.toFixed(1),
      r.insert.p50Ms.toFixed(1),
      r.insert.p99Ms.toFixed(1),
      String(r.insert.duplicates),
      String(r.insert.non2xx),
      String(r.insert.failures),
      `${ratios[i]!.toFixed(2)}×`,
    ]),
  );
  console.log(insertVerdict);
}

function table(header: string[], lines: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, ...lines]) console.log(line.map((c, i) => c.padStart(widths[i]!)).join('  '));
}

main().catch((error: Error) => {
  console.error(`\nBENCHMARK ABORTED: ${error.message}`);
  process.exitCode = 1;
});

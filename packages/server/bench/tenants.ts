/**
 * Many people's agents at once. A real Cairn runs in a child process (bench/servers.ts); the
 * database is filled with other tenants' entries up to `--others` (bench/seed-others.ts), then
 * `--users` users each get a key and `--entries-per-user` LoCoMo turns in their personal datapack
 * (bench/seed-tenants.ts). Closed-loop clients then send MCP tool calls, each a new LoCoMo question
 * (search) or a new note (save_entry, `--mix` search/save percentages), one phase after another,
 * each after `--warmup` untimed seconds:
 *
 *   one-user      one user on `--users` connections, search only (the same-run baseline)
 *   users-search  `--users` users at once, one connection each, search only
 *   users-mix     the same with the mix
 *   one-search    one user, one connection, search only
 *   one-mix       one user, one connection, the mix (the capture pattern)
 *   one-save      one user, one connection, saves only (its CPU per save against one-search's per search)
 *   heavy-search  with --heavy N: one more user, of N entries, one connection, search only (its CPU
 *                 per search against one-search's: a heavy user should stay within 2×)
 *   heavy-save    with --heavy N: that user saving only (their inserts/s against one-save's: a user
 *                 of 2,000 entries should insert within 1.5× of a new one's rate, --entries-per-user 1)
 *
 * Each phase reports req/s, p50/p95/p99 per operation, the server's CPU per request, /healthz p99
 * (probed every 20 ms from another process), RSS after the phase, errors by kind, and the load average.
 * The phases are measured on `cairn serve` in a process of its own, started on the seeded data
 * (bench/served-cairn.ts); with `--in-process` (implied by --profile and --source) on the child that
 * seeded it, which also reports its heap and how pools came to be, but whose RSS counts the
 * seeding's leftovers and the TypeScript loader as well.
 *
 *   npm run bench:tenants -w @cairn/server -- --users 200 --entries-per-user 1000 --others 1m
 *     --mix 80/20 [--backend sqlite|postgres --database-url <postgres server url>] [--duration 20]
 *     [--warmup 5] [--phases one-user,users-search,...] [--heavy 20000] [--data <locomo.json>] [--json] [--source] [--in-process]
 *     [--profile <dir>]   (the server's CPU profile of each measured phase, <dir>/<phase>.cpuprofile, summarized)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BACKEND_OPTIONS, backendOf } from '../measure/cli-options.js';
import { loadQuestions, loadTurns } from '../measure/locomo.js';
import { percentile, round1 } from '../measure/percentile.js';
import { INSTALLER_USER_AGENT } from '../src/auth/mcp-auth.js';
import { type CpuProfile, summarizeProfile } from './cpu-profile.js';
import { probeHealthz } from './healthz-probe.js';
import { entryBodies } from './insert-rate.js';
import { runFacts } from './run-facts.js';
import { serveSeeded } from './served-cairn.js';
import type { ChildMessage, ParentMessage } from './servers.js';

const PHASES = [
  'one-user',
  'users-search',
  'users-mix',
  'one-search',
  'one-mix',
  'one-save',
  'heavy-search',
  'heavy-save',
] as const;
type Phase = (typeof PHASES)[number];

function parseCount(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`${flag} takes a count such as 200, 100k or 1m, not "${text}"`);
  return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1));
}

function parseOptions() {
  const { values } = parseArgs({
    options: {
      users: { type: 'string', default: '200' },
      'entries-per-user': { type: 'string', default: '1000' },
      others: { type: 'string', default: '1m' },
      mix: { type: 'string', default: '80/20' },
      ...BACKEND_OPTIONS,
      duration: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '5' },
      phases: { type: 'string' },
      heavy: { type: 'string', default: '0' },
      profile: { type: 'string' },
      'per-tenant': { type: 'string', default: '2000' },
      source: { type: 'boolean', default: false },
      'in-process': { type: 'boolean', default: false },
      data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
      json: { type: 'boolean', default: false },
    },
  });
  const { backend, databaseUrl } = backendOf(values);
  const mix = /^(\d+)\/(\d+)$/.exec(values.mix);
  if (!mix || Number(mix[1]) + Number(mix[2]) !== 100)
    throw new Error(`--mix takes search/save percentages that add up to 100, such as 80/20, not "${values.mix}"`);
  const heavy = parseCount(values.heavy, '--heavy');
  const phases = (values.phases ?? PHASES.filter((p) => heavy > 0 || !p.startsWith('heavy')).join(','))
    .split(',')
    .map((p) => p.trim());
  if (phases.some((p) => p.startsWith('heavy')) && heavy === 0)
    throw new Error('the heavy-search and heavy-save phases need --heavy <entries>');
  for (const p of phases)
    if (!(PHASES as readonly string[]).includes(p))
      throw new Error(`--phases takes some of ${PHASES.join(', ')}, not "${p}"`);
  const base = process.env.INIT_CWD ?? process.cwd();
  return {
    users: parseCount(values.users, '--users'),
    perUser: parseCount(values['entries-per-user'], '--entries-per-user'),
    heavy,
    others: parseCount(values.others, '--others'),
    saveShare: Number(mix[2]) / 100,
    mix: values.mix,
    backend,
    databaseUrl,
    duration: Number(values.duration),
    warmup: Number(values.warmup),
    phases: phases as Phase[],
    perTenant: parseCount(values['per-tenant'], '--per-tenant'),
    source: values.source ?? false,
    inProcess: Boolean(values['in-process'] || values.profile || values.source),
    dataPath: isAbsolute(values.data) ? values.data : resolve(base, values.data),
    json: values.json,
    profile: values.profile && (isAbsolute(values.profile) ? values.profile : resolve(base, values.profile)),
  };
}
type Options = ReturnType<typeof parseOptions>;

interface Child {
  process: ChildProcess;
  url: string;
}

function ask<T extends ChildMessage['type']>(
  child: Child,
  message: ParentMessage,
  answer: T,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const listen = (m: ChildMessage) => {
      if (m.type === 'seed-progress') return void process.stderr.write(`  seeding: ${m.done}/${m.goal}\n`);
      child.process.off('message', listen);
      if (m.type === answer) resolve(m as Extract<ChildMessage, { type: T }>);
      else reject(new Error(`the Cairn process answered ${m.type === 'failed' ? m.message : m.type}`));
    };
    child.process.on('message', listen);
    child.process.send(message);
  });
}

function startCairn(options: Options): Promise<Child> {
  const child = fork(
    new URL('./servers.ts', import.meta.url),
    [
      'cairn',
      JSON.stringify({
        postgresServerUrl: options.databaseUrl,
        entries: 0,
        dataPath: options.dataPath,
        source: options.source,
      }),
    ],
    {
      execArgv: ['--import', 'tsx'],
    },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`Cairn process exited (code ${code}) before it was ready`)));
    child.once('message', (m: ChildMessage) =>
      m.type === 'ready'
        ? resolve({ process: child, url: m.url })
        : reject(new Error(`Cairn process failed: ${m.type === 'failed' ? m.message : m.type}`)),
    );
  });
}

/** The Cairn a phase measures: the seeding child itself, or a `cairn serve` it handed its data to. */
interface Measured {
  url: string;
  cpuMicros(): Promise<number>;
  memory(): Promise<{ rssMb: number; heapMb?: number; pools?: { built: number; refreshed: number; taken: number } }>;
  profileStart?(): Promise<void>;
  profileStop?(path: string): Promise<string>;
  close(): Promise<void>;
}

function measureChild(child: Child): Measured {
  return {
    url: child.url,
    cpuMicros: async () => (await ask(child, { type: 'cpu' }, 'cpu')).micros,
    memory: () => ask(child, { type: 'rss' }, 'rss'),
    profileStart: async () => void (await ask(child, { type: 'profile-start' }, 'profile-started')),
    profileStop: async (path) => (await ask(child, { type: 'profile-stop', path }, 'profile-saved')).path,
    close: async () => void child.process.send({ type: 'close' } satisfies ParentMessage),
  };
}

/** The child closes its Cairn and exits; `cairn serve` opens the same data. */
async function measureServed(child: Child): Promise<Measured> {
  const { env } = await ask(child, { type: 'hand-over' }, 'handed-over');
  const served = await serveSeeded(env);
  return {
    url: served.url,
    cpuMicros: async () => served.cpuMicros(),
    memory: async () => ({ rssMb: served.rssMb() }),
    close: () => served.close(),
  };
}

function headers(key: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
    Authorization: `Bearer ${key}`,
    'User-Agent': INSTALLER_USER_AGENT,
  };
}

interface Tally {
  search: number[];
  save: number[];
  errors: Map<string, number>;
  duplicates: number;
}

/** One tool call; its latency goes to the tally when `counting`, and a failure under its kind. True when it succeeded. */
async function call(
  url: string,
  key: string,
  tool: 'search' | 'save_entry',
  args: object,
  tally: Tally,
  counting: boolean,
): Promise<boolean> {
  const started = performance.now();
  let kind: string | undefined;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: headers(key),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    if (response.status !== 200) kind = `HTTP ${response.status}`;
    else if (!text.includes('"result"')) kind = `JSON-RPC ${/"code":(-?\d+)/.exec(text)?.[1] ?? '?'}`;
    else if (text.includes('"isError":true')) kind = `tool error: ${/"text":"([^"]{0,60})/.exec(text)?.[1] ?? '?'}`;
    else if (tool === 'save_entry' && text.includes('"status":"duplicate"') && counting) tally.duplicates++;
  } catch (error) {
    kind = `network: ${(error as Error).name}`;
  }
  if (counting && kind) tally.errors.set(kind, (tally.errors.get(kind) ?? 0) + 1);
  else if (counting) (tool === 'search' ? tally.search : tally.save).push(performance.now() - started);
  return kind === undefined;
}

async function runPhase(
  phase: Phase,
  child: Measured,
  keys: string[],
  connections: number,
  saveShare: number,
  options: Options,
  questions: string[],
  note: () => string,
) {
  let q = Math.floor(Math.random() * questions.length);
  const tally: Tally = { search: [], save: [], errors: new Map(), duplicates: 0 };
  let counting = false;
  let stop = false;
  const answered = new Set<number>();
  const loop = async (c: number) => {
    const key = keys[c % keys.length]!;
    while (!stop) {
      const counted = counting;
      const ok =
        Math.random() < saveShare
          ? await call(child.url, key, 'save_entry', JSON.parse(note()) as object, tally, counted)
          : await call(
              child.url,
              key,
              'search',
              { query: questions[q++ % questions.length]!, limit: 10 },
              tally,
              counted,
            );
      // Warm only once it has been answered: a refused request (busy, say) built nothing.
      if (ok) answered.add(c);
    }
  };
  const loops = Array.from({ length: connections }, (_, c) => loop(c));
  // Warm: every connection has had an answer (each user's first search builds their pool), then `warmup` seconds more.
  const warmBy = Date.now() + 120_000;
  while (answered.size < connections && Date.now() < warmBy) await new Promise((r) => setTimeout(r, 100));
  if (answered.size < connections)
    process.stderr.write(
      `  only ${answered.size} of ${connections} connections had an answer after 120 s; measuring anyway\n`,
    );
  await new Promise((r) => setTimeout(r, options.warmup * 1000));
  const poolsBefore = (await child.memory()).pools;
  if (options.profile) await child.profileStart!();
  const cpuBefore = await child.cpuMicros();
  const probing = probeHealthz(new URL('/healthz', child.url), options.duration);
  counting = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, options.duration * 1000));
  counting = false;
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await child.cpuMicros();
  if (options.profile)
    summarizePhaseProfile(phase, await child.profileStop!(join(options.profile, `${phase}.cpuprofile`)));
  const healthz = await probing;
  stop = true;
  await Promise.all(loops);
  const { rssMb: rss, heapMb, pools } = await child.memory();
  const done = tally.search.length + tally.save.length;
  tally.search.sort((a, b) => a - b);
  tally.save.sort((a, b) => a - b);
  const errors = [...tally.errors.values()].reduce((a, b) => a + b, 0);
  return {
    connections,
    users: Math.min(keys.length, connections),
    reqPerSec: Math.round((done / seconds) * 10) / 10,
    search: {
      count: tally.search.length,
      p50: percentile(tally.search, 0.5),
      p95: percentile(tally.search, 0.95),
      p99: percentile(tally.search, 0.99),
    },
    save: {
      count: tally.save.length,
      p50: percentile(tally.save, 0.5),
      p95: percentile(tally.save, 0.95),
      p99: percentile(tally.save, 0.99),
      duplicates: tally.duplicates,
    },
    cpuMsPerRequest: Math.round(((cpuAfter - cpuBefore) / 1000 / Math.max(1, done + errors)) * 100) / 100,
    healthzP99Ms: percentile(healthz, 0.99),
    rssMb: rss,
    /** The heap and array buffers in use after a collection: Cairn's own data, the rest of RSS being the process's. */
    heapMb: heapMb ?? Number.NaN,
    errors: Object.fromEntries(tally.errors),
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
    /** Pools read whole, refreshed after a write, and given a saved entry by its writer while the phase was measured; '-' for a build without the counters. */
    pools:
      pools && poolsBefore
        ? `${pools.built - poolsBefore.built} built, ${pools.refreshed - poolsBefore.refreshed} refreshed, ${pools.taken - poolsBefore.taken} taken`
        : '-',
  };
}

function summarizePhaseProfile(phase: Phase, path: string): void {
  const summary = summarizeProfile(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, 20);
  process.stderr.write(`${phase}: CPU profile ${path}, busy ${summary.busyMs} ms; top self time:\n`);
  for (const f of [...summary.packages.slice(0, 8), ...summary.functions])
    process.stderr.write(`${f.percent.toFixed(1).padStart(7)}%  ${f.name}\n`);
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (options.profile) mkdirSync(options.profile, { recursive: true });
  const questions = await loadQuestions(options.dataPath);
  const turns = await loadTurns(options.dataPath);
  const note = entryBodies(turns);
  process.stderr.write(`starting Cairn (${options.backend}) …\n`);
  const child = await startCairn(options);
  let measured: Measured = measureChild(child);
  const rows: { phase: Phase; result: Awaited<ReturnType<typeof runPhase>> }[] = [];
  let seeded: { others: number; othersSeconds: number; tenantsSeconds: number };
  try {
    const othersGoal = Math.max(0, options.others - options.users * options.perUser);
    process.stderr.write(`filling the database with ${othersGoal} other tenants' entries …\n`);
    const grown = await ask(child, { type: 'grow', total: othersGoal, perTenant: options.perTenant }, 'grown');
    process.stderr.write(`creating ${options.users} users of ${options.perUser} entries …\n`);
    const tenants = await ask(child, { type: 'tenants', users: options.users, perUser: options.perUser }, 'tenants');
    seeded = { others: grown.total, othersSeconds: grown.seconds, tenantsSeconds: tenants.seconds };
    const heavy =
      options.heavy > 0
        ? await ask(child, { type: 'tenants', users: 1, perUser: options.heavy, first: options.users }, 'tenants')
        : undefined;
    if (!options.inProcess) {
      process.stderr.write('starting cairn serve on the seeded data …\n');
      measured = await measureServed(child);
    }
    for (const phase of options.phases) {
      const many = phase.startsWith('users');
      const keys = phase.startsWith('heavy') ? heavy!.keys : many ? tenants.keys : tenants.keys.slice(0, 1);
      const connections = phase === 'one-user' || many ? options.users : 1;
      const saveShare = phase.endsWith('-save') ? 1 : phase.endsWith('mix') ? options.saveShare : 0;
      process.stderr.write(
        `${phase}: ${keys.length} user(s) on ${connections} connection(s), ${saveShare * 100}% saves, ${options.warmup}s + ${options.duration}s …\n`,
      );
      rows.push({
        phase,
        result: await runPhase(phase, measured, keys, connections, saveShare, options, questions, note),
      });
    }
  } finally {
    await measured.close();
  }
  const meta = {
    ...runFacts(options.backend),
    users: options.users,
    perUser: options.perUser,
    heavy: options.heavy,
    entries: seeded.others + options.users * options.perUser + options.heavy,
    mix: options.mix,
    durationSeconds: options.duration,
    seeded,
    measured: options.inProcess ? 'the seeding child (--in-process)' : 'cairn serve, a process of its own',
  };
  const baseline = rows.find((r) => r.phase === 'one-user')?.result.reqPerSec;
  const oneSearch = rows.find((r) => r.phase === 'one-search')?.result.reqPerSec;
  const oneSave = rows.find((r) => r.phase === 'one-save')?.result.reqPerSec;
  if (options.json) return void console.log(JSON.stringify({ meta, rows }, null, 2));
  process.stderr.write(`${JSON.stringify({ meta, rows })}\n`);
  console.log(
    `\n${options.users} users × ${options.perUser} entries, ${meta.entries} entries in all — ${options.backend}, ${options.duration}s a phase after ${options.warmup}s warm-up, ${meta.cpus} cores, measured on ${meta.measured}`,
  );
  const header = [
    'phase',
    'conns',
    'req/s',
    '÷ baseline',
    'search p50/p95/p99 ms',
    'save p50/p95/p99 ms',
    'CPU ms/req',
    '/healthz p99',
    'RSS (heap) MB',
    'errors',
    'pools',
    'load avg',
  ];
  const ms = (p: { p50: number | null; p95: number | null; p99: number | null }) =>
    [p.p50, p.p95, p.p99].map((v) => (v === null ? '-' : String(round1(v)))).join('/');
  const lines = rows.map(({ phase, result: r }) => [
    phase,
    String(r.connections),
    String(r.reqPerSec),
    (phase === 'heavy-save'
      ? oneSave
        ? r.reqPerSec / oneSave
        : NaN
      : (phase.startsWith('one-') && phase !== 'one-user') || phase.startsWith('heavy')
        ? oneSearch
          ? r.reqPerSec / oneSearch
          : NaN
        : baseline
          ? r.reqPerSec / baseline
          : NaN
    ).toFixed(2),
    ms(r.search),
    r.save.count ? `${ms(r.save)} (${r.save.duplicates} dup)` : '-',
    String(r.cpuMsPerRequest),
    String(round1(r.healthzP99Ms)),
    Number.isNaN(r.heapMb) ? String(r.rssMb) : `${r.rssMb} (${r.heapMb})`,
    Object.entries(r.errors)
      .map(([k, n]) => `${n} ${k}`)
      .join('; ') || '0',
    r.pools,
    r.loadavg.join(' '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, ...lines]) console.log(line.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  console.log(
    '(÷ baseline: users-* against one-user on as many connections; one-mix and heavy-search against one-search; heavy-save against one-save)',
  );
  const cpuOf = (phase: Phase) => rows.find((r) => r.phase === phase)?.result.cpuMsPerRequest;
  const [heavyCpu, oneCpu] = [cpuOf('heavy-search'), cpuOf('one-search')];
  const saveCpu = cpuOf('one-save');
  if (saveCpu && oneCpu)
    console.log(
      `CPU per save ÷ CPU per search, one user of ${options.perUser} entries: ${(saveCpu / oneCpu).toFixed(2)}× (${saveCpu} / ${oneCpu} ms)`,
    );
  if (heavyCpu && oneCpu)
    console.log(
      `CPU per search, a user of ${options.heavy} entries ÷ one of ${options.perUser}: ${(heavyCpu / oneCpu).toFixed(2)}× (${heavyCpu} / ${oneCpu} ms)`,
    );
}

main().catch((error: Error) => {
  console.error(`\nBENCHMARK ABORTED: ${error.message}`);
  process.exitCode = 1;
});

/**
 * Drives a Cairn beyond its capacity and reports how it sheds the excess (docs/overload.md):
 *
 *   npm run bench:overload -w @cairn/server -- [--backend postgres --database-url URL]
 *     [--users 20] [--entries-per-user 50] [--connections 200] [--seconds 20]
 *     [--max-concurrent N --max-queued N --max-wait-ms N] [--honour-retry-after] [--no-baseline]
 *     [--cpu-prof <dir>]   (the server's CPU profiles, one .cpuprofile per run, summarized on the console)
 *
 * Each of `--connections` clients searches over /mcp (a different LoCoMo question each time) in a
 * closed loop, with one of `--users` keys; a busy answer is retried at once (the worst case for the
 * server), or after its Retry-After with --honour-retry-after. A prober asks /healthz every 20 ms.
 * The same load then runs against the same data with the bound lifted (the same-run baseline of
 * what happened before it), unless --no-baseline. Cairn runs from its build (`npm run build` first).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { INSTALLER_USER_AGENT } from '@cairn/contract';
import { loadLocomo, loadTurns } from '../measure/locomo.js';
import { percentile } from '../measure/percentile.js';
import { loadConfig } from '../src/config/load-config.js';
import { loadAccess } from '../src/domain/access.js';
import { createUser } from '../src/domain/accounts.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { listDatapacks } from '../src/domain/datapacks.js';
import { saveEntry } from '../src/domain/entries.js';
import { openCairn } from '../src/runtime/open-cairn.js';
import { startCairnProcess } from '../src/testing/cairn-process.js';
import { createTestDatabase } from '../src/testing/postgres.js';
import { freePort } from '../src/testing/test-cairn.js';
import { type CpuProfile, summarizeProfile } from './cpu-profile.js';
import { probeHealthz, probeRequests } from './healthz-probe.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    users: { type: 'string', default: '20' },
    'entries-per-user': { type: 'string', default: '50' },
    connections: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '20' },
    'max-concurrent': { type: 'string' },
    'max-queued': { type: 'string' },
    'max-wait-ms': { type: 'string' },
    'honour-retry-after': { type: 'boolean', default: false },
    'no-baseline': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
  },
});
if (values.backend !== 'sqlite' && values.backend !== 'postgres')
  throw new Error(`--backend must be sqlite or postgres, not ${values.backend}`);
if (values.backend === 'postgres' && !values['database-url'])
  throw new Error('--backend postgres needs --database-url <postgres server url>');
const users = Number(values.users);
const perUser = Number(values['entries-per-user']);
const connections = Number(values.connections);
const seconds = Number(values.seconds);

/** The bound under test: the defaults unless given. */
const bounded: Record<string, string> = {
  ...(values['max-concurrent'] && { CAIRN_MAX_CONCURRENT_REQUESTS: values['max-concurrent'] }),
  ...(values['max-queued'] && { CAIRN_MAX_QUEUED_REQUESTS: values['max-queued'] }),
  ...(values['max-wait-ms'] && { CAIRN_MAX_QUEUE_WAIT_MS: values['max-wait-ms'] }),
};
/** As good as no bound: what Cairn did before it had one. */
const unbounded = {
  CAIRN_MAX_CONCURRENT_REQUESTS: '10000',
  CAIRN_MAX_QUEUED_REQUESTS: '100000',
  CAIRN_MAX_QUEUE_WAIT_MS: '60000',
};

type Kind =
  | 'ok'
  | 'busy'
  | 'busy, slow'
  | 'busy after waiting'
  | 'unavailable'
  | 'rate_limited'
  | 'other'
  | 'no answer';

interface Outcome {
  kind: Kind;
  ms: number;
}

async function seed(env: Record<string, string>): Promise<string[]> {
  const started = Date.now();
  const cairn = await openCairn(loadConfig({ ...env, CAIRN_LOG_LEVEL: 'warn' }));
  const turns = await loadTurns(values.data);
  const keys: string[] = [];
  try {
    for (let u = 0; u < users; u++) {
      const { user } = await createUser(cairn.domain, cairn.auth, {
        email: `load-${u}@example.test`,
        password: 'correct horse battery',
        org: `Load ${u}`,
        join: false,
        name: `Load ${u}`,
      });
      keys.push((await createApiKey(cairn.domain, user.id, 'load')).key);
      const access = await loadAccess(cairn.domain, {
        userId: user.id,
        client: 'cairn-bench',
        via: 'cli',
        scope: 'read-write',
      });
      const [pack] = await listDatapacks(cairn.domain, access);
      for (let i = 0; i < perUser; i++) {
        const turn = turns[(u * perUser + i) % turns.length]!;
        await saveEntry(cairn.domain, access, {
          title: turn.title,
          content: `${turn.content} (${u}.${i})`,
          kind: turn.kind,
          datapack: pack!.id,
        });
      }
    }
  } finally {
    await cairn.close();
  }
  console.log(`seeded ${users} users × ${perUser} entries in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return keys;
}

function kindOf(status: number, text: string): Kind {
  if (status === 200) return /"error"|"isError":true/.test(text) ? 'other' : 'ok';
  if (status === 429) return 'rate_limited';
  if (status === 503 && /waited its longest allowed turn/.test(text)) return 'busy after waiting';
  if (status === 503 && /to answer this one in time/.test(text)) return 'busy, slow';
  if (status === 503)
    return /-32054|Cairn is busy/.test(text)
      ? 'busy'
      : /-32053|cannot reach its database/.test(text)
        ? 'unavailable'
        : 'other';
  return 'other';
}

function searchHeaders(key: string): Record<string, string> {
  return {
    Authorization: `Bearer ${key}`,
    'User-Agent': INSTALLER_USER_AGENT,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
}

function searchBody(id: number, question: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'search', arguments: { query: question } },
  });
}

async function search(
  mcpUrl: string,
  key: string,
  id: number,
  question: string,
): Promise<{ outcome: Outcome; retryAfter: number }> {
  const started = performance.now();
  try {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: searchHeaders(key),
      body: searchBody(id, question),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    return {
      outcome: { kind: kindOf(res.status, text), ms: performance.now() - started },
      retryAfter: Number(res.headers.get('retry-after') ?? 0),
    };
  } catch {
    return { outcome: { kind: 'no answer', ms: performance.now() - started }, retryAfter: 0 };
  }
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

async function drive(name: string, env: Record<string, string>, keys: string[], questions: string[]) {
  const profileDir = values['cpu-prof'] && resolve(values['cpu-prof'], name.split(' ')[0]!);
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const server = await startCairnProcess(
    { ...env, CAIRN_LOG_LEVEL: 'warn', CAIRN_REQUESTS_PER_MINUTE: '100000000' },
    await freePort(),
    { preferBuild: true, nodeArgs },
  );
  console.log(`${name}: Cairn runs from its ${server.runs}`);
  const mcpUrl = `${server.baseUrl}/mcp`;
  const outcomes: Outcome[] = [];
  const loadBefore = loadAverage();
  const until = Date.now() + seconds * 1000;
  let next = 0;
  // Probes from processes of their own, so the load generator's own lag does not count against the server.
  const health = probeHealthz(new URL('/healthz', server.baseUrl), seconds);
  const probe = probeRequests(new URL(mcpUrl), seconds, {
    method: 'POST',
    headers: searchHeaders(keys[0]!),
    body: searchBody(0, questions[0]!),
  });
  try {
    const client = async (c: number) => {
      while (Date.now() < until) {
        const n = next++;
        const { outcome, retryAfter } = await search(
          mcpUrl,
          keys[c % keys.length]!,
          n,
          questions[n % questions.length]!,
        );
        outcomes.push(outcome);
        if (outcome.kind.startsWith('busy') && values['honour-retry-after'])
          await new Promise((r) => setTimeout(r, retryAfter * 1000));
      }
    };
    await Promise.all(Array.from({ length: connections }, (_, c) => client(c)));
  } finally {
    await Promise.allSettled([health, probe]);
    await server.stop();
  }
  if (profileDir) summarizeProfiles(profileDir);
  const by = (kind: Kind) => outcomes.filter((o) => o.kind === kind).map((o) => o.ms);
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const ms = (xs: number[], p: number) => Math.round(percentile(xs, p));
  const ok = sorted(by('ok'));
  const busy = sorted([...by('busy'), ...by('busy, slow'), ...by('busy after waiting')]);
  const p95 = (kind: Kind) => ms(sorted(by(kind)), 0.95);
  const h = await health;
  const probed = await probe;
  const probedBusy = sorted(probed.filter((a) => a.status === 503).map((a) => a.ms));
  const probedOk = sorted(probed.filter((a) => a.status === 200).map((a) => a.ms));
  const counts = Object.fromEntries(
    (
      ['ok', 'busy', 'busy, slow', 'busy after waiting', 'unavailable', 'rate_limited', 'other', 'no answer'] as Kind[]
    ).map((k) => [k, by(k).length]),
  );
  return {
    run: name,
    'answered/s': Math.round(ok.length / seconds),
    'busy share': `${((100 * busy.length) / Math.max(1, outcomes.length)).toFixed(1)}%`,
    'to 503 p50/p95 ms': `${ms(busy, 0.5)} / ${ms(busy, 0.95)}`,
    'answered p50/p95/max ms': `${ms(ok, 0.5)} / ${ms(ok, 0.95)} / ${Math.round(ok.at(-1) ?? Number.NaN)}`,
    'probe: 503s, to 503 p50/p95 ms': `${probedBusy.length}, ${ms(probedBusy, 0.5)} / ${ms(probedBusy, 0.95)}`,
    'probe: answered, p50/p95 ms': `${probedOk.length}, ${ms(probedOk, 0.5)} / ${ms(probedOk, 0.95)}`,
    'healthz p50/p99/max ms': `${ms(h, 0.5)} / ${ms(h, 0.99)} / ${Math.round(h.at(-1) ?? Number.NaN)}`,
    'counts by kind': JSON.stringify(counts),
    'to 503 p95 ms full/slow/waited': `${p95('busy')} / ${p95('busy, slow')} / ${p95('busy after waiting')}`,
    'load avg before': loadBefore,
  };
}

function summarizeProfiles(dir: string): void {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const summary = summarizeProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, 25);
    console.log(`CPU profile ${join(dir, file)}: busy ${summary.busyMs} ms, idle ${summary.idleMs} ms; top self time:`);
    console.table([...summary.packages, ...summary.functions]);
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-overload-'));
  const database = values.backend === 'postgres' ? await createTestDatabase(values['database-url']!) : undefined;
  const env = { CAIRN_DATA_DIR: dataDir, ...(database && { DATABASE_URL: database.url }) };
  try {
    const keys = await seed(env);
    const questions = (await loadLocomo(values.data)).flatMap((c) => c.questions.map((q) => q.question));
    const runs = [await drive(`bounded ${JSON.stringify(bounded)}`, { ...env, ...bounded }, keys, questions)];
    if (!values['no-baseline'])
      runs.push(await drive('unbounded (baseline)', { ...env, ...unbounded }, keys, questions));
    console.log(
      `${values.backend}, ${connections} connections, ${users} keys, ${seconds} s each${values['honour-retry-after'] ? ', Retry-After honoured' : ', busy retried at once'}`,
    );
    console.table(runs);
    // The same figures as JSON on stderr, so a run is never lost to a narrow terminal.
    console.error(JSON.stringify(runs));
  } finally {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

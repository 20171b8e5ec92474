/**
 * Cairn's resident memory as an operator meets it: the built `cairn serve` (bin/cairn.js, no tsx),
 * a user made with the CLI, 2,000 LoCoMo turns captured through the public API, then RSS idle and
 * after each of `--runs` loads of `--seconds` at `--connections` (MCP search with a different
 * LoCoMo question per request, list_datapacks, get_guidance). A leak shows as RSS climbing run
 * after run; the issue's bar is idle < 100 MB and < 150 MB after each run. Idle is read once the
 * process has been left alone for `--settle` seconds (V8 gives back its young generation's pages a
 * few seconds after allocation stops): fresh, before any request; after the capture; and after
 * the last load, which shows whether the load left memory behind.
 *
 *   npm run bench:memory -w @cairn/server -- [--seconds 60] [--runs 3] [--connections 10] [--settle 20]
 *     [--entries 2000] [--backend sqlite|postgres --database-url <postgres server url>] [--data <locomo.json>]
 *     [--node-flags=--max-old-space-size=128]   (V8 flags for the served process, to compare settings)
 *
 * Needs a build (`npm run build`): it measures what `npm start` runs.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadLocomo } from '../measure/locomo.js';
import { INSTALLER_USER_AGENT } from '../src/auth/mcp-auth.js';
import { createTestDatabase } from '../src/testing/postgres.js';

const BIN = new URL('../bin/cairn.js', import.meta.url).pathname;
/** The node flags on bin/cairn.js's shebang line: `cairn serve` as `npm start` runs it gets them. */
const SHEBANG_FLAGS = readFileSync(BIN, 'utf8')
  .split('\n', 1)[0]!
  .replace(/^#!.*?\bnode\b/, '')
  .trim()
  .split(/\s+/)
  .filter(Boolean);
const PROTOCOL_VERSION = '2025-06-18';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    settle: { type: 'string', default: '20' },
    entries: { type: 'string', default: '2000' },
    backend: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    // The shared folder sits beside the repository: <repo>/../shared/data, wherever the command runs from.
    data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
    'node-flags': { type: 'string', default: '' },
  },
});
const seconds = Number(values.seconds);
const runs = Number(values.runs);
const connections = Number(values.connections);
const entries = Number(values.entries);
const backend = values.backend;
if (backend !== 'sqlite' && backend !== 'postgres')
  throw new Error(`--backend must be sqlite or postgres, not ${backend}`);
const serverUrl = values['database-url'] ?? process.env.CAIRN_TEST_DATABASE_URL;
if (backend === 'postgres' && !serverUrl)
  throw new Error(
    '--backend postgres needs --database-url <postgres server url> (or CAIRN_TEST_DATABASE_URL); a throwaway database is made on it',
  );
// npm runs workspace scripts in packages/server; the default data path is the repository root's.
const dataPath = isAbsolute(values.data!) ? values.data! : resolve(process.env.INIT_CWD ?? process.cwd(), values.data!);

const dataDir = mkdtempSync(join(tmpdir(), 'cairn-memory-'));
const database = backend === 'postgres' ? await createTestDatabase(serverUrl!) : undefined;
const port = await freePort();
const env = {
  ...process.env,
  CAIRN_DATA_DIR: dataDir,
  PORT: String(port),
  CAIRN_REQUESTS_PER_MINUTE: '100000000',
  CAIRN_CAPTURE_TURNS_PER_MINUTE: '1000000',
  ...(database && { DATABASE_URL: database.url }),
};
const base = `http://127.0.0.1:${port}`;
let server: ChildProcess | undefined;
try {
  cli(
    ['users', 'create', '--email', 'bench@example.com', '--name', 'Bench', '--password-stdin'],
    `${randomBytes(16).toString('hex')}\n`,
  );
  const key = cli(['keys', 'create', '--user', 'bench@example.com', '--name', 'memory bench']).trim();
  server = spawn(
    process.execPath,
    [...SHEBANG_FLAGS, ...values['node-flags']!.split(' ').filter(Boolean), BIN, 'serve'],
    { env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  await until(async () => (await fetch(`${base}/healthz`)).ok);
  const settle = Number(values.settle) * 1000;
  await sleep(settle);
  const fresh = rssMb(server.pid!);
  const conversations = await loadLocomo(dataPath);
  const questions = conversations.flatMap((c) => c.questions.map((q) => q.question));
  const turns = conversations.flatMap((c) => c.turns.map((t) => ({ c, t }))).slice(0, entries);
  for (let i = 0; i < turns.length; i += 50) {
    const batch = turns.slice(i, i + 50).map(({ c, t }) => ({
      id: `${c.sampleId}:${t.diaId}`,
      role: t.role,
      speaker: t.speaker,
      text: t.text,
      client: 'bench',
      sessionId: `${c.sampleId}-s${t.session}`,
      at: t.at,
    }));
    const response = await fetch(`${base}/api/v1/capture`, {
      method: 'POST',
      headers: headers(key),
      body: JSON.stringify({ turns: batch }),
    });
    if (!response.ok) throw new Error(`capture answered ${response.status}: ${await response.text()}`);
  }
  process.stderr.write(`captured ${turns.length} turns\n`);
  await sleep(settle);
  const idle = rssMb(server.pid!);
  const requests = questions.slice(0, 200).flatMap((q, i) => {
    const call = (name: string, args: object) => ({
      method: 'POST' as const,
      path: '/mcp',
      headers: headers(key),
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: args } }),
    });
    return i % 10 === 0
      ? [call('list_datapacks', {}), call('get_guidance', { task: q })]
      : [call('search', { query: q })];
  });
  const after: { run: number; rssMb: number; reqPerSec: number; non2xx: number }[] = [];
  for (let run = 1; run <= runs; run++) {
    process.stderr.write(`load run ${run}/${runs}: ${seconds}s at ${connections} connections …\n`);
    const result = await autocannon({ url: base, connections, duration: seconds, requests });
    after.push({
      run,
      rssMb: rssMb(server.pid!),
      reqPerSec: Math.round(result.requests.average),
      non2xx: result.non2xx,
    });
  }
  await sleep(settle);
  const rested = rssMb(server.pid!);
  console.log(
    `\nCairn memory (built cairn serve${SHEBANG_FLAGS.length ? ` with ${SHEBANG_FLAGS.join(' ')}` : ''}, ${backend}, ${turns.length} entries, node ${process.version}, ${availableParallelism()} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  const idleTarget = (mb: number) => `(target < 100 MB: ${mb < 100 ? 'met' : 'NOT met'})`;
  console.log(`idle RSS, fresh (${values.settle}s after start, no request yet): ${fresh} MB ${idleTarget(fresh)}`);
  console.log(
    `idle RSS after capturing ${turns.length} turns (${values.settle}s later): ${idle} MB ${idleTarget(idle)}`,
  );
  for (const a of after)
    console.log(
      `after load run ${a.run} (${seconds}s, ${connections} connections, ${a.reqPerSec} req/s, ${a.non2xx} non-2xx): ${a.rssMb} MB (target < 150 MB: ${a.rssMb < 150 ? 'met' : 'NOT met'})`,
    );
  console.log(`idle RSS ${values.settle}s after the last load: ${rested} MB ${idleTarget(rested)}`);
} finally {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill();
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
}

function headers(key: string): Record<string, string> {
  return {
    Authorization: `Bearer ${key}`,
    'User-Agent': INSTALLER_USER_AGENT,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL_VERSION,
  };
}

function cli(args: string[], input = ''): string {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cairn ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
}

async function until(ready: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await ready().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error('cairn serve did not answer /healthz within 30 s');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

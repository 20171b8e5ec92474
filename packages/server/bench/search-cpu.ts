/**
 * CPU time of one search in the domain layer, without HTTP or MCP: the built Cairn (dist/) with a
 * user holding `--entries` LoCoMo turns, every LoCoMo question asked in turn (their access loaded
 * for each, as a request does), one pass to warm up, then `--passes` timed passes. CPU time, not
 * wall time, so a busy shared machine blurs it less than req/s. `--root` measures another checkout's
 * build (a worktree of an older commit) with the same data, for before/after figures.
 *
 *   npm run bench:search-cpu -w @cairn/server -- [--entries 2000] [--passes 3] [--root <checkout>]
 *     [--backend sqlite|postgres --database-url <postgres server url>] [--data <locomo.json>]
 *     [--profile <file.cpuprofile>]   (a CPU profile of the timed passes, summarized on the console)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadLocomo, loadTurns } from '../measure/locomo.js';
import { createTestDatabase } from '../src/testing/postgres.js';
import { type CpuProfile, summarizeProfile } from './cpu-profile.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '2000' },
    passes: { type: 'string', default: '3' },
    root: { type: 'string', default: new URL('../../..', import.meta.url).pathname },
    backend: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
    profile: { type: 'string' },
  },
});
const base = process.env.INIT_CWD ?? process.cwd();
const path = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
const dist = (module: string) => import(join(path(values.root), 'packages/server/dist', module));
if (values.backend === 'postgres' && !values['database-url'])
  throw new Error('--backend postgres needs --database-url <postgres server url>');

const { loadConfig } = await dist('config/load-config.js');
const { openCairn } = await dist('runtime/open-cairn.js');
const { createUser } = await dist('domain/accounts.js');
const { loadAccess } = await dist('domain/access.js');
const { listDatapacks } = await dist('domain/datapacks.js');
const { saveEntry, searchEntries } = await dist('domain/entries.js');

const turns = await loadTurns(path(values.data));
const questions = (await loadLocomo(path(values.data))).flatMap((c) => c.questions.map((q) => q.question));

const dataDir = mkdtempSync(join(tmpdir(), 'cairn-search-cpu-'));
const database = values.backend === 'postgres' ? await createTestDatabase(values['database-url']!) : undefined;
const cairn = await openCairn(
  loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    CAIRN_DATA_DIR: dataDir,
    CAIRN_LOG_LEVEL: 'warn',
    ...(database && { DATABASE_URL: database.url }),
  }),
);
try {
  const { user } = await createUser(cairn.domain, cairn.auth, {
    email: 'bench@example.test',
    password: 'violet-harbor-trumpet-9431',
    org: 'Bench',
    join: false,
    name: 'Bench',
  });
  const caller = { userId: user.id, client: 'cairn-bench', via: 'cli', scope: 'read-write' };
  const packs = await listDatapacks(cairn.domain, await loadAccess(cairn.domain, caller));
  let created = 0;
  for (let i = 0; i < turns.length && created < Number(values.entries); i++) {
    const saved = await saveEntry(cairn.domain, await loadAccess(cairn.domain, caller), {
      ...turns[i]!,
      datapack: packs[i % packs.length].id,
    });
    if (saved.status === 'created') created++;
  }
  const pass = async () => {
    const before = process.cpuUsage();
    for (const query of questions)
      await searchEntries(cairn.domain, await loadAccess(cairn.domain, caller), { query, limit: 10 });
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / questions.length;
  };
  await pass();
  const profiler = values.profile ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  const passes: number[] = [];
  for (let i = 0; i < Number(values.passes); i++) passes.push(await pass());
  if (profiler) {
    const { profile } = (await profiler.post('Profiler.stop')) as { profile: CpuProfile };
    writeFileSync(path(values.profile!), JSON.stringify(profile));
    const summary = summarizeProfile(profile);
    console.log(
      `CPU profile of the timed passes (${values.profile}), busy ${Math.round(summary.busyMs)} ms; top self time:`,
    );
    for (const f of summary.functions.slice(0, 20)) console.log(`${f.percent.toFixed(1).padStart(7)}%  ${f.name}`);
  }
  console.log(
    `${values.root}: ${created} entries (${values.backend}), ${questions.length} questions per pass; CPU ms per search ${passes.map((p) => p.toFixed(2)).join(' / ')}; RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
  );
} finally {
  await cairn.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}

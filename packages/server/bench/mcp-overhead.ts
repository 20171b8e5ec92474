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
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { measureAll, printProfile, printTable, profileTarget, rssOf, toRows, verdict } from './mcp-overhead-measure.js';
import { parseOptions } from './mcp-overhead-options.js';
import {
  baselineTarget,
  type Child,
  jsonApiSearchTarget,
  mcpTargets,
  sdkEchoTarget,
  startChild,
  stopChild,
  type Target,
  verify,
} from './mcp-overhead-targets.js';
import type { CairnChildOptions, SeedReport } from './servers.js';

// ---- main ------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = await parseOptions();
  const startLoad = loadavg();
  let baseline: Child | undefined;
  let echo: Child | undefined;
  let cairn: Child | undefined;
  let before: Child | undefined;
  try {
    const cairnOptions: CairnChildOptions = {
      postgresServerUrl: options.databaseUrl,
      entries: options.entries,
      dataPath: options.dataPath,
      source: options.source,
    };
    [baseline, echo, cairn, before] = await Promise.all([
      startChild(['baseline']),
      startChild(['sdk-echo']),
      startChild(['cairn', JSON.stringify(cairnOptions)]),
      options.compare ? startChild(['cairn', JSON.stringify({ ...cairnOptions, root: options.compare })]) : undefined,
    ]);
    const idleRss = await rssOf(cairn);
    const seed = cairn.ready.seed as SeedReport;
    process.stderr.write(
      `seeded ${seed.created} entries into ${seed.datapacks} datapacks in ${seed.seconds}s (${options.backend})\n`,
    );
    const earlier = before ? mcpTargets(before, options, 'before: ') : [];
    // Each target beside its counterpart on the other build, so that measureAll can alternate which goes first.
    const mcp = mcpTargets(cairn, options).flatMap((t, i) => (earlier[i] ? [t, earlier[i]] : [t]));
    const writes = (t: Target) => t.name.endsWith('save_entry');
    // Both builds save in every round, after all reads: each round's reads then search as many entries on either.
    const targets = [
      baselineTarget(baseline),
      sdkEchoTarget(echo),
      jsonApiSearchTarget(cairn, options),
      ...mcp.filter((t) => !writes(t)),
      ...mcp.filter(writes),
    ];
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
    console.log(
      `Cairn RSS: ${idleRss} MB idle (seeded), ${loadedRss} MB after the load above; stock SDK echo server: ${await rssOf(echo)} MB`,
    );
    if (profile) printProfile(profiled.name, profile, options.profileOut);
    if (options.out)
      writeFileSync(
        options.out,
        `${JSON.stringify({ meta, results: rows, verdict: verdict(rows), profile }, null, 2)}\n`,
      );
  } finally {
    await Promise.all([stopChild(baseline), stopChild(echo), stopChild(cairn), stopChild(before)]);
  }
}

main().catch((error: Error) => {
  console.error(`\nBENCHMARK ABORTED: ${error.message}`);
  process.exitCode = 1;
});

/**
 * Guidance quality on a company's rulebook, measured the way agents meet Cairn: the company (its
 * teams, people and datapacks at each level) is built in a fresh Cairn, every rule goes in through
 * the MCP `save_entry` tool as someone allowed to write it (a replaced rule first, then the rule
 * that replaces it, with `supersedes`), and every task is asked through MCP `get_guidance` as its
 * user (the official MCP SDK client).
 *
 *   npm run eval:guidance -w @cairn/server -- <guidance.json> [--backend sqlite|postgres]
 *     [--database-url <postgres server url>] [--no-concerns] [--plain] [--folds 5] [--json]
 *
 * Annotated (the default) stores each rule with its `applies` and `when` and `supersedes`, and asks
 * with the task's `files`, `project` and `concerns`. --no-concerns asks without concerns (an agent
 * that passes none); --plain stores the rules without `applies`/`when`/`supersedes` and asks without
 * `files`/`project`/`concerns`: what a team that never annotates gets. A server whose tools lack those fields is measured the same
 * way (and the report says so). Prints recall, precision (without "always" rules), recall in view
 * (rules given in full or named in mayAlsoApply), rules and characters returned (median and max), tasks shown a replaced rule, saves refused as duplicates, the call's
 * p50/p95, and the same figures per fold (task i is in fold i mod k) so a fold left out of tuning
 * can be read on its own.
 */
import { parseArgs } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import { BACKEND_OPTIONS, backendOf, inputFile } from '../measure/cli-options.js';
import { connectMcpClient } from '../src/testing/mcp-client.js';
import { startTestCairn } from '../src/testing/test-cairn.js';
import { buildCompany, loadCompany, ruleFacts, saveRules } from './guidance-company.js';
import { type AskedTask, folds, type GuidanceFigures, guidanceFigures } from './guidance-metrics.js';

interface Options {
  file: string;
  backend: 'sqlite' | 'postgres';
  databaseUrl?: string;
  plain: boolean;
  concerns: boolean;
  folds: number;
  json: boolean;
}

function parseOptions(): Options {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ...BACKEND_OPTIONS,
      plain: { type: 'boolean', default: false },
      'no-concerns': { type: 'boolean', default: false },
      folds: { type: 'string', default: '5' },
      json: { type: 'boolean', default: false },
    },
  });
  const file = inputFile(
    positionals[0],
    'name the company file: npm run eval:guidance -w @cairn/server -- ../shared/data/guidance-dev.json',
  );
  const { backend, databaseUrl } = backendOf(values);
  const k = Number(values.folds);
  if (!Number.isInteger(k) || k < 2 || k > 20) throw new Error('--folds must be a whole number from 2 to 20');
  return {
    file,
    backend,
    databaseUrl,
    plain: values.plain,
    concerns: !values.plain && !values['no-concerns'],
    folds: k,
    json: values.json,
  };
}

interface Report {
  file: string;
  backend: string;
  mode: 'annotated' | 'annotated, no concerns' | 'plain';
  /** What the server's tools accept: an older server ignores applies, supersedes, files and project. */
  serverSupports: { applies: boolean; context: boolean; concerns: boolean };
  rules: number;
  refusedAsDuplicate: string[];
  overall: GuidanceFigures;
  folds: GuidanceFigures[];
}

async function main(): Promise<void> {
  const options = parseOptions();
  const company = await loadCompany(options.file);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  say(
    `guidance: ${company.company}, ${company.entries.length} rules, ${company.tasks.length} tasks on ${options.backend}${options.plain ? ' (plain)' : ''}`,
  );
  const cairn = await startTestCairn({
    postgresServerUrl: options.databaseUrl,
    env: { CAIRN_REQUESTS_PER_MINUTE: '1000000' },
  });
  try {
    const people = await buildCompany(cairn, company);
    const admin = await connectMcpClient(cairn.mcpUrl, people.adminKey);
    const tools = (await admin.listTools()).tools;
    const props = (name: string) =>
      Object.keys((tools.find((t) => t.name === name)?.inputSchema.properties as object | undefined) ?? {});
    const serverSupports = {
      applies: props('save_entry').includes('applies'),
      context: props('get_guidance').includes('files'),
      concerns: props('get_guidance').includes('concerns'),
    };
    const annotate = !options.plain && serverSupports.applies;
    const { idOf, refused } = await saveRules(cairn, company, people, admin, annotate);
    await admin.close();
    say(`saved ${idOf.size} rules (${refused.length} refused as duplicates); asking ${company.tasks.length} tasks`);
    const ruleOf = new Map([...idOf].map(([rule, id]) => [id, rule]));
    const asked: AskedTask[] = [];
    const clients = new Map<string, Client>();
    try {
      for (const task of company.tasks) {
        let client = clients.get(task.user);
        if (!client) {
          client = await connectMcpClient(cairn.mcpUrl, people.keys.get(task.user)!);
          clients.set(task.user, client);
        }
        const args: Record<string, unknown> = { task: task.task };
        if (!options.plain && serverSupports.context) {
          if (task.files.length) args.files = task.files;
          if (task.project) args.project = task.project;
        }
        if (options.concerns && serverSupports.concerns && task.concerns?.length) args.concerns = task.concerns;
        const t0 = performance.now();
        const result = await client.callTool({ name: 'get_guidance', arguments: args });
        const ms = performance.now() - t0;
        if (result.isError) throw new Error(`get_guidance failed for ${task.id}: ${JSON.stringify(result.content)}`);
        const structured = result.structuredContent as {
          levels: { items: { entry: { id: string } }[] }[];
          mayAlsoApply?: { id: string }[];
        };
        const returned = structured.levels.flatMap((l) =>
          l.items.map((i) => ruleOf.get(i.entry.id) ?? `?${i.entry.id}`),
        );
        const named = (structured.mayAlsoApply ?? []).map((p) => ruleOf.get(p.id) ?? `?${p.id}`);
        const chars = (result.content as { type: string; text?: string }[]).reduce(
          (n, c) => n + (c.text?.length ?? 0),
          0,
        );
        asked.push({ id: task.id, applies: task.applies, returned, named, chars, ms });
      }
    } finally {
      for (const client of clients.values()) await client.close();
    }
    const facts = ruleFacts(company);
    const report: Report = {
      file: options.file,
      backend: options.backend,
      mode: options.plain ? 'plain' : options.concerns ? 'annotated' : 'annotated, no concerns',
      serverSupports,
      rules: idOf.size,
      refusedAsDuplicate: refused,
      overall: guidanceFigures(asked, facts),
      folds: folds(asked, options.folds).map((f) => guidanceFigures(f, facts)),
    };
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else printReport(report);
  } finally {
    await cairn.close();
  }
}

function printReport(r: Report): void {
  const support =
    r.serverSupports.applies && r.serverSupports.context && r.serverSupports.concerns
      ? ''
      : ` — this server's tools lack ${[!r.serverSupports.applies && 'applies/supersedes', !r.serverSupports.context && 'files/project', !r.serverSupports.concerns && 'concerns'].filter(Boolean).join(' and ')}, so they were not sent`;
  console.log(`\nGuidance — ${r.backend}, ${r.mode}, ${r.rules} rules saved, ${r.overall.tasks} tasks${support}`);
  console.log(
    `saves refused as duplicates: ${r.refusedAsDuplicate.length}${r.refusedAsDuplicate.length ? ` (${r.refusedAsDuplicate.join(', ')})` : ''}`,
  );
  const header = [
    '',
    'tasks',
    'recall%',
    'precision%',
    'inView%',
    'rules(med)',
    'chars(med)',
    'chars(max)',
    'shownReplaced',
    'p50ms',
    'p95ms',
  ];
  const row = (name: string, f: GuidanceFigures) =>
    [
      name,
      f.tasks,
      f.recall,
      f.precision,
      f.recallInView,
      f.medianRules,
      f.medianChars,
      f.maxChars,
      f.tasksShownReplaced,
      f.p50Ms,
      f.p95Ms,
    ].map(String);
  const rows = [row('all', r.overall), ...r.folds.map((f, i) => row(`fold ${i + 1}`, f))];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  for (const line of [header, ...rows])
    console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
}

main().catch((error: Error) => {
  console.error(`\nGUIDANCE RUN ABORTED: ${error.message}`);
  process.exitCode = 1;
});

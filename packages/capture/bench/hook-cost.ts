// What the capture hook costs the agent's turn, measured as the agent runs it: a new `node` process per
// hook with the hook input on stdin, 50 runs of each event, Cairn up (a real one, holding the rules of
// test/guidance-rules.fixture.ts, each prompt in a new session so its guidance is given in full) and
// down (nothing listening, so the turn is spooled). A bare `node -e ''` is measured in the same run as the floor.
// With --baseline (another build, e.g. `git show <rev>:plugins/cairn/hooks/cairn-capture.js`) each
// series runs both scripts in turn, so a loaded machine's drift weighs on both alike.
//   node --import tsx packages/capture/bench/hook-cost.ts [--runs 50] [--script path/to/cairn-capture.js] [--baseline path/to/other.js]
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from '../../server/measure/percentile.js';
import { createTenant } from '../../server/src/testing/tenants.js';
import { startTestCairn } from '../../server/src/testing/test-cairn.js';
import { bundleCapture } from '../scripts/bundle.mjs';
import { unreachableUrl } from '../src/testing/stub-capture-server.js';
import { checkout, seedRules } from '../test/guidance-rules.fixture.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '50' }, script: { type: 'string' }, baseline: { type: 'string' } },
});
const runs = Number(values.runs);

function once(args: string[], env: Record<string, string>, stdin: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', () => resolve(performance.now() - started)));
}

/** Runs the hook (`args` after the script) `runs` times, the baseline's turn before each run when there is one. */
async function series(
  name: string,
  args: string[],
  env: Record<string, string>,
  stdin: (i: number) => string,
): Promise<void> {
  const times: number[] = [];
  const before: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (values.baseline) before.push(await once([values.baseline, ...args], env, stdin(runs + i)));
    times.push(await once([script, ...args], env, stdin(i)));
  }
  if (values.baseline) row(`${name} (baseline)`, before);
  row(name, times);
}

function row(name: string, times: number[]): void {
  times.sort((a, b) => a - b);
  const at = (q: number) => percentile(times, q).toFixed(0);
  console.log(`| ${name} | ${at(0.5)} | ${at(0.95)} | ${times.at(-1)!.toFixed(0)} |`);
}

const script = values.script ?? join(mkdtempSync(join(tmpdir(), 'cairn-hook-bench-')), 'cairn-capture.js');
if (!values.script) writeFileSync(script, await bundleCapture());
const cairn = await startTestCairn();
const tenant = await createTenant(cairn.cairn);
await seedRules(cairn, tenant);
const repo = checkout(mkdtempSync(join(tmpdir(), 'cairn-hook-bench-repo-')));
const down = await unreachableUrl();
const home = (label: string) => mkdtempSync(join(tmpdir(), `cairn-hook-bench-${label}-`));
const prompt = (i: number) =>
  JSON.stringify({
    session_id: `bench-${i}`,
    cwd: repo,
    prompt: `Add VAT to invoices, benchmark prompt number ${i}`,
    hook_event_name: 'UserPromptSubmit',
  });
const edit = (i: number) =>
  JSON.stringify({
    session_id: `bench-${i}`,
    cwd: repo,
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(repo, 'migrations', `${i}.sql`), content: 'SELECT 1;' },
  });
const stop = (i: number) =>
  JSON.stringify({
    session_id: 'bench',
    last_assistant_message: `benchmark answer number ${i}`,
    stop_hook_active: false,
  });

console.log(`capture hook cost, ${runs} runs each, ms from spawn to exit (${script})\n`);
console.log('| what | p50 | p95 | max |\n|---|---|---|---|');
const floor: number[] = [];
for (let i = 0; i < runs; i++) floor.push(await once(['-e', ''], {}, ''));
row("bare `node -e ''`", floor);
const up = { HOME: home('up'), CAIRN_URL: cairn.baseUrl, CAIRN_API_KEY: tenant.member.key };
await series('UserPromptSubmit, Cairn up', ['claude-code', 'prompt'], up, prompt);
await series('PostToolUse of a write under migrations/, Cairn up', ['claude-code', 'edit'], up, edit);
await series('Stop, Cairn up', ['claude-code', 'stop'], up, stop);
const away = { HOME: home('down'), CAIRN_URL: down, CAIRN_API_KEY: tenant.member.key };
await series('UserPromptSubmit, Cairn down (spooled)', ['claude-code', 'prompt'], away, prompt);
await series('Stop, Cairn down (spooled)', ['claude-code', 'stop'], away, stop);
const conversations = (await cairn.cairn.store.findDatapacks([{ scope: 'personal', ownerId: tenant.member.id }])).find(
  (d) => d.name === 'Conversations',
);
const stored = conversations
  ? (await cairn.cairn.store.listEntries(conversations.id, { limit: 10_000, offset: 0 })).length
  : 0;
console.log(`\n${stored} turns stored while up (expected ${2 * runs * (values.baseline ? 2 : 1)})`);
await cairn.close();

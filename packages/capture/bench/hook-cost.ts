// What the capture hook costs the agent's turn, measured as the agent runs it: a new `node` process per
// hook with the hook input on stdin, 50 runs of each event, Cairn up (a real one, holding the rules of
// test/guidance-rules.fixture.ts, each prompt in a new session so its guidance is given in full) and
// down (nothing listening, so the turn is spooled). A bare `node -e ''` is measured in the same run as the floor.
//   node --import tsx packages/capture/bench/hook-cost.ts [--runs 50] [--script path/to/cairn-capture.js]
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from '../../server/bench/percentile.js';
import { createTenant } from '../../server/src/testing/tenants.js';
import { startTestCairn } from '../../server/src/testing/test-cairn.js';
import { bundleCapture } from '../scripts/bundle.mjs';
import { unreachableUrl } from '../src/testing/stub-capture-server.js';
import { checkout, seedRules } from '../test/guidance-rules.fixture.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '50' }, script: { type: 'string' } } });
const runs = Number(values.runs);

function once(args: string[], env: Record<string, string>, stdin: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', () => resolve(performance.now() - started)));
}

async function series(name: string, args: string[], env: Record<string, string>, stdin: (i: number) => string): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once(args, env, stdin(i)));
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
const prompt = (i: number) => JSON.stringify({ session_id: `bench-${i}`, cwd: repo, prompt: `Add VAT to invoices, benchmark prompt number ${i}`, hook_event_name: 'UserPromptSubmit' });
const edit = (i: number) =>
  JSON.stringify({ session_id: `bench-${i}`, cwd: repo, hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: join(repo, 'migrations', `${i}.sql`), content: 'SELECT 1;' } });
const stop = (i: number) => JSON.stringify({ session_id: 'bench', last_assistant_message: `benchmark answer number ${i}`, stop_hook_active: false });

console.log(`capture hook cost, ${runs} runs each, ms from spawn to exit (${script})\n`);
console.log('| what | p50 | p95 | max |\n|---|---|---|---|');
await series("bare `node -e ''`", ['-e', ''], {}, () => '');
const up = { HOME: home('up'), CAIRN_URL: cairn.baseUrl, CAIRN_API_KEY: tenant.member.key };
await series('UserPromptSubmit, Cairn up', [script, 'claude-code', 'prompt'], up, prompt);
await series('PostToolUse of a write under migrations/, Cairn up', [script, 'claude-code', 'edit'], up, edit);
await series('Stop, Cairn up', [script, 'claude-code', 'stop'], up, stop);
const away = { HOME: home('down'), CAIRN_URL: down, CAIRN_API_KEY: tenant.member.key };
await series('UserPromptSubmit, Cairn down (spooled)', [script, 'claude-code', 'prompt'], away, prompt);
await series('Stop, Cairn down (spooled)', [script, 'claude-code', 'stop'], away, stop);
const conversations = (await cairn.cairn.store.findDatapacks([{ scope: 'personal', ownerId: tenant.member.id }])).find((d) => d.name === 'Conversations');
const stored = conversations ? (await cairn.cairn.store.listEntries(conversations.id, { limit: 10_000, offset: 0 })).length : 0;
console.log(`\n${stored} turns stored while up (expected ${2 * runs})`);
await cairn.close();

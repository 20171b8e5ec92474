/**
 * Retrieval recall on a LoCoMo-format file, measured the way an agent meets Cairn: every turn goes
 * in through the public write path (POST /api/v1/capture), every category 1–4 question goes out
 * through the MCP `search` tool (the official MCP SDK client), one user per conversation so each
 * conversation is searched on its own.
 *
 *   npm run eval:recall -w @cairn/server -- <locomo.json> [--backend sqlite|postgres]
 *     [--database-url <postgres server url>] [--limit 25] [--entries-per-user N] [--json]
 *
 * Every question is asked twice in a row, once with the lexical ranking alone and once with the
 * hybrid one (word vectors and conversation context, the default), so both are measured in the
 * same run on the same data. Prints strict evidence recall and hit rate at 5/10/25, per category,
 * the load rate and each ranking's search p50/p95 and their ratio. Progress goes to stderr; --json
 * puts one JSON document on stdout instead of the tables. --entries-per-user pads each user with
 * the other conversations' turns (another datapack) so searches run over that many entries.
 * The held-out row is every fifth question of the file (question i is in fold i mod 5, the fifth
 * held out), as eval/guidance.ts splits tasks: choose settings on the other four folds only.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { BACKEND_OPTIONS, backendOf, inputFile } from '../measure/cli-options.js';
import { type LocomoConversation, loadLocomo } from '../measure/locomo.js';
import { percentile, round1 } from '../measure/percentile.js';
import { INSTALLER_USER_AGENT } from '../src/auth/mcp-auth.js';
import { createUser } from '../src/domain/accounts.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { callTool, connectMcpClient } from '../src/testing/mcp-client.js';
import { startTestCairn, type TestCairn } from '../src/testing/test-cairn.js';
import { folds } from './guidance-metrics.js';
import { type Answered, CATEGORY_NAMES, CUTOFFS, type RecallFigures, recallFigures } from './recall-metrics.js';

/** Turns per capture request: the endpoint's own maximum. */
const CAPTURE_BATCH = 50;
const PAD_DATAPACK = 'Other conversations';

interface Options {
  file: string;
  backend: 'sqlite' | 'postgres';
  databaseUrl?: string;
  limit: number;
  /** Pad each user up to this many entries with the other conversations' turns (0: no padding). */
  entriesPerUser: number;
  json: boolean;
}

function parseOptions(): Options {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ...BACKEND_OPTIONS,
      limit: { type: 'string', default: '25' },
      'entries-per-user': { type: 'string', default: '0' },
      json: { type: 'boolean', default: false },
    },
  });
  const file = inputFile(
    positionals[0],
    'name the LoCoMo file: npm run eval:recall -w @cairn/server -- ../shared/data/locomo-dev.json',
  );
  const { backend, databaseUrl } = backendOf(values);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < Math.max(...CUTOFFS) || limit > 50)
    throw new Error(`--limit must be an integer from ${Math.max(...CUTOFFS)} to 50`);
  const entriesPerUser = Number(values['entries-per-user']);
  if (!Number.isInteger(entriesPerUser) || entriesPerUser < 0 || entriesPerUser > 20_000)
    throw new Error('--entries-per-user must be a whole number from 0 to 20000');
  return { file, backend, databaseUrl, limit, entriesPerUser, json: values.json };
}

const RANKINGS = ['lexical', 'hybrid'] as const;
/** Questions go to FOLDS folds by position; the last is held out of any tuning. */
const FOLDS = 5;
type Ranking = (typeof RANKINGS)[number];

interface RankingReport {
  search: { p50Ms: number; p95Ms: number; p99Ms: number };
  overall: RecallFigures;
  byCategory: Record<string, RecallFigures>;
  /** The last of FOLDS folds by question position: the figure no setting was chosen on. */
  heldOut: RecallFigures;
}

interface Report {
  file: string;
  backend: string;
  conversations: number;
  turns: number;
  questions: number;
  limit: number;
  /** Each user's entries with the padding (0: none). */
  entriesPerUser: number;
  load: { stored: number; seconds: number; turnsPerSecond: number };
  rankings: Record<Ranking, RankingReport>;
  /** Hybrid search p95 over lexical search p95, measured side by side. */
  p95Ratio: number;
}

async function main(): Promise<void> {
  const options = parseOptions();
  const conversations = await loadLocomo(options.file);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  say(`recall: ${conversations.length} conversations from ${options.file} on ${options.backend}`);
  const cairn = await startTestCairn({
    postgresServerUrl: options.databaseUrl,
    // The harness sends a whole conversation in seconds; the per-key capture limit is for real clients.
    env: { CAIRN_CAPTURE_TURNS_PER_MINUTE: '1000000' },
  });
  try {
    const answered: Record<Ranking, Answered[]> = { lexical: [], hybrid: [] };
    const latencies: Record<Ranking, number[]> = { lexical: [], hybrid: [] };
    const store = cairn.cairn.store;
    let stored = 0;
    let loadMs = 0;
    for (const [i, conversation] of conversations.entries()) {
      const key = await newUserKey(cairn, conversation.sampleId);
      const started = performance.now();
      const diaOf = await capture(cairn, key, conversation);
      loadMs += performance.now() - started;
      if (options.entriesPerUser > diaOf.size)
        await pad(cairn, key, conversations, conversation, options.entriesPerUser - diaOf.size);
      stored += diaOf.size;
      say(
        `[${i + 1}/${conversations.length}] ${conversation.sampleId}: ${diaOf.size} turns stored; asking ${conversation.questions.length} questions`,
      );
      const client = await connectMcpClient(cairn.mcpUrl, key);
      try {
        for (const [n, q] of conversation.questions.entries()) {
          for (const ranking of RANKINGS) {
            // The harness shares the server's process, so it flips the store's switch (CAIRN_SEARCH_SEMANTIC) between calls.
            store.semanticSearch = ranking === 'hybrid';
            const t0 = performance.now();
            const result = await callTool<{ results: { entry: { id: string } }[] }>(client, 'search', {
              query: q.question,
              limit: options.limit,
            });
            latencies[ranking].push(performance.now() - t0);
            answered[ranking].push({
              category: q.category,
              evidence: q.evidence,
              ranked: result.results.map((r) => diaOf.get(r.entry.id) ?? '?'),
            });
          }
          if ((n + 1) % 50 === 0) say(`  ${n + 1}/${conversation.questions.length} questions`);
        }
      } finally {
        await client.close();
      }
    }
    const rankings = Object.fromEntries(
      RANKINGS.map((ranking) => [ranking, rankingReport(answered[ranking], latencies[ranking])]),
    ) as Record<Ranking, RankingReport>;
    const report: Report = {
      file: options.file,
      backend: options.backend,
      conversations: conversations.length,
      turns: conversations.reduce((n, c) => n + c.turns.length, 0),
      questions: answered.hybrid.length,
      limit: options.limit,
      entriesPerUser: options.entriesPerUser,
      load: { stored, seconds: round1(loadMs / 1000), turnsPerSecond: Math.round(stored / (loadMs / 1000)) },
      rankings,
      p95Ratio: Math.round((rankings.hybrid.search.p95Ms / rankings.lexical.search.p95Ms) * 100) / 100,
    };
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else printReport(report);
  } finally {
    await cairn.close();
  }
}

function rankingReport(answered: Answered[], latencies: number[]): RankingReport {
  latencies.sort((a, b) => a - b);
  const byCategory: Record<string, RecallFigures> = {};
  for (const category of [1, 2, 3, 4])
    byCategory[CATEGORY_NAMES[category]!] = recallFigures(answered.filter((a) => a.category === category));
  return {
    search: {
      p50Ms: round1(percentile(latencies, 0.5)),
      p95Ms: round1(percentile(latencies, 0.95)),
      p99Ms: round1(percentile(latencies, 0.99)),
    },
    overall: recallFigures(answered),
    byCategory,
    heldOut: recallFigures(folds(answered, FOLDS)[FOLDS - 1]!),
  };
}

/** A fresh user (and organization) per conversation, with an API key. */
async function newUserKey(cairn: TestCairn, sampleId: string): Promise<string> {
  const tag = randomBytes(4).toString('hex');
  const { user } = await createUser(cairn.cairn.domain, cairn.cairn.auth, {
    email: `${sampleId.toLowerCase().replace(/[^a-z0-9]/g, '-')}-${tag}@recall.test`,
    password: randomBytes(18).toString('base64url'),
    org: `Recall ${sampleId} ${tag}`,
    name: sampleId,
  });
  return (await createApiKey(cairn.cairn.domain, user.id, 'recall harness')).key;
}

/** Sends every turn through POST /api/v1/capture; returns stored entry id → dia_id. */
async function capture(cairn: TestCairn, key: string, conversation: LocomoConversation): Promise<Map<string, string>> {
  const prefix = `${conversation.sampleId}:`;
  for (let i = 0; i < conversation.turns.length; i += CAPTURE_BATCH) {
    const turns = conversation.turns.slice(i, i + CAPTURE_BATCH).map((t) => ({
      id: `${prefix}${t.diaId}`,
      role: t.role,
      speaker: t.speaker,
      text: t.text,
      client: 'locomo',
      sessionId: `${conversation.sampleId}-s${t.session}`,
      at: t.at,
    }));
    await postTurns(cairn, key, { turns }, 'capture');
  }
  // Capture answers with counts only, so the capture records (turn id → entry id) map results back.
  const rows = await cairn.cairn.store.db
    .selectFrom('capture_turn')
    .select(['turn_id', 'entry_id'])
    .where('turn_id', 'like', `${prefix}%`)
    .execute();
  return new Map(rows.map((r) => [r.entry_id, r.turn_id.slice(prefix.length)]));
}

/**
 * Fills the user's "Other conversations" datapack with turns of the file's other conversations
 * (other speakers, other sessions), so search runs over as many entries as a heavier user holds.
 */
async function pad(
  cairn: TestCairn,
  key: string,
  all: LocomoConversation[],
  own: LocomoConversation,
  count: number,
): Promise<void> {
  const client = await connectMcpClient(cairn.mcpUrl, key);
  await callTool(client, 'create_datapack', { name: PAD_DATAPACK, scope: 'personal' });
  await client.close();
  const others = all.filter((c) => c !== own).flatMap((c) => c.turns.map((t) => ({ sampleId: c.sampleId, turn: t })));
  const turns = Array.from({ length: count }, (_, i) => others[i % others.length]!).map(({ sampleId, turn }, i) => ({
    id: `pad:${own.sampleId}:${i}`,
    role: turn.role,
    speaker: turn.speaker,
    text: turn.text,
    client: 'locomo',
    sessionId: `pad-${sampleId}-s${turn.session}-${Math.floor(i / others.length)}`,
    at: turn.at,
  }));
  for (let i = 0; i < turns.length; i += CAPTURE_BATCH) {
    await postTurns(cairn, key, { turns: turns.slice(i, i + CAPTURE_BATCH), datapack: PAD_DATAPACK }, 'padding');
  }
}

/** One POST /api/v1/capture as the hook sends it; `what` names the batch in the error. */
async function postTurns(cairn: TestCairn, key: string, body: object, what: string): Promise<void> {
  const response = await fetch(`${cairn.baseUrl}/api/v1/capture`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'User-Agent': INSTALLER_USER_AGENT, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`capture (${what}) answered ${response.status}: ${await response.text()}`);
}

function printReport(r: Report): void {
  const padded = r.entriesPerUser
    ? `, each user padded to ${r.entriesPerUser} entries with the other conversations' turns`
    : '';
  console.log(
    `\nLoCoMo recall — ${r.backend}, ${r.conversations} conversations, ${r.turns} turns, ${r.questions} questions (categories 1–4), search limit ${r.limit}${padded}`,
  );
  console.log(`load: ${r.load.stored} turns in ${r.load.seconds}s through capture (${r.load.turnsPerSecond} turns/s)`);
  for (const ranking of RANKINGS) printRanking(ranking, r.rankings[ranking]);
  console.log(`\nhybrid search p95 / lexical search p95 (same run): ${r.p95Ratio}×`);
}

function printRanking(name: Ranking, r: RankingReport): void {
  console.log(
    `\n${name} ranking — search p50 ${r.search.p50Ms} ms, p95 ${r.search.p95Ms} ms, p99 ${r.search.p99Ms} ms`,
  );
  const header = ['', 'questions', ...CUTOFFS.map((k) => `R@${k}`), ...CUTOFFS.map((k) => `hit@${k}`)];
  const rows = [
    ['all', r.overall] as const,
    ...Object.entries(r.byCategory),
    [`held-out (fold ${FOLDS}/${FOLDS})`, r.heldOut] as const,
  ].map(([name, f]) => [
    name,
    String(f.questions),
    ...CUTOFFS.map((k) => f.strict[k]!.toFixed(1)),
    ...CUTOFFS.map((k) => f.hit[k]!.toFixed(1)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const line of [header, ...rows])
    console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
}

main().catch((error: Error) => {
  console.error(`\nRECALL RUN ABORTED: ${error.message}`);
  process.exitCode = 1;
});

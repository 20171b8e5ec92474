// Issue 6, "Proved with a real client": the real `claude` CLI from npm, pointed at a local fake model
// server, with the cairn plugin installed from this repository's marketplace served as a git repository,
// captures the prompt and the final response (redacted) into a real Cairn, and keeps working while
// Cairn is down; the spooled turns arrive, once, after it is back. Everything runs on 127.0.0.1.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { listen, stopListening } from '../../../server/src/runtime/serve.js';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { callTool, connectMcpClient } from '../../../server/src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../../server/src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../../server/src/testing/test-cairn.js';
import {
  AWS_KEY,
  CLAUDE,
  type CliRun,
  type FakeModel,
  fakeAnswer,
  killTree,
  live,
  marketplaceRepository,
  REPO,
  runClaude,
  startFakeModel,
  startGitServer,
  USE_TOOL,
  word,
} from './claude-run.fixture.js';

runFileOnEachBackend();

const hasGit = spawnSync('git', ['--version']).status === 0;
const skip = !existsSync(CLAUDE)
  ? 'the claude CLI is not installed (npm test installs it into test-clients/)'
  : !hasGit
    ? 'git is not on PATH'
    : false;

describe('claude -p with the cairn plugin, against a real Cairn', { skip }, () => {
  let cairn: TestCairn;
  let tenant: TestTenant;
  let model: FakeModel;
  let gitServer: { url: string; close(): Promise<void> };
  let tmp: string;
  let home: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  /**
   * The capture address: a second listener of the same Cairn (same app, same database), which this test can
   * stop (port refused) and start again on the same port; TestCairn has no stop/start of its own yet.
   */
  let capture: { url: string; port: number; server?: Awaited<ReturnType<typeof listen>>['server'] };
  /** The id of every turn that reached Cairn's store, duplicates included, in order. */
  const received: string[] = [];
  const toolWord = word('toolinput');
  const toolResultWord = word('toolresult');

  const spoolFile = () => join(home, '.cairn', 'capture-spool.jsonl');
  const captureLog = () =>
    existsSync(join(home, '.cairn', 'capture.log'))
      ? readFileSync(join(home, '.cairn', 'capture.log'), 'utf8')
      : '(no capture.log)';
  const explain = (run: CliRun) =>
    [
      `exit ${run.code} signal ${run.signal} after ${run.ms} ms${run.timedOut ? ' (TIMED OUT)' : ''}`,
      `--- stdout\n${run.stdout}`,
      `--- stderr\n${run.stderr}`,
      `--- fake model requests\n${model.requests.map((r) => `${r.method} ${r.path} model=${r.model} stream=${r.stream}`).join('\n')}`,
      `--- unknown paths: ${model.unknown.join(', ') || 'none'}`,
      `--- ~/.cairn/capture.log\n${captureLog()}`,
    ].join('\n');

  async function startCaptureListener(port = 0) {
    const started = await listen(cairn.cairn, port);
    capture = { url: `http://127.0.0.1:${started.port}`, port: started.port, server: started.server };
  }

  async function conversationRows() {
    const db = cairn.cairn.store.db;
    const entries = await db
      .selectFrom('entry')
      .select(['id', 'title', 'content', 'tags', 'kind'])
      .where('kind', '=', 'conversation')
      .execute();
    const versions = await db.selectFrom('entry_version').select(['title', 'content', 'tags']).execute();
    return { entries, versions, all: JSON.stringify([entries, versions]) };
  }

  async function search(query: string) {
    const client = await connectMcpClient(cairn.mcpUrl, tenant.member.key);
    try {
      const { results } = await callTool(client, 'search', { query, limit: 50 });
      return results as {
        entry: { title: string; content: string; kind: string; tags: string[] };
        datapack: { name: string };
      }[];
    } finally {
      await client.close();
    }
  }

  /** One headless session; returns the run and the marker its prompt carried. */
  async function session(extra = '') {
    const marker = word('mark');
    const prompt = `Remember the ${marker} deployment checklist. ${extra}\n${plantedSecretsText}`;
    return { marker, prompt, run: await runClaude(['-p', prompt], env, project) };
  }

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'cairn-claude-e2e-'));
    home = join(tmp, 'home');
    project = join(home, 'billing-service');
    mkdirSync(project, { recursive: true });
    // The file the fake model asks the Read tool for: its words must never reach Cairn.
    writeFileSync(join(project, `${toolWord}.txt`), `Internal notes: ${toolResultWord}\n`);
    cairn = await startTestCairn({
      wrapStore: (store) => {
        const insert = store.insertCapturedTurn.bind(store);
        store.insertCapturedTurn = (entry, userId, turnId, turn) => {
          received.push(turnId);
          return insert(entry, userId, turnId, turn);
        };
        return store;
      },
    });
    tenant = await createTenant(cairn.cairn);
    await startCaptureListener();
    model = await startFakeModel(join(project, `${toolWord}.txt`));
    gitServer = await startGitServer(marketplaceRepository(join(tmp, 'git')));
    env = {
      // node first: the hook command is `node …/cairn-capture.js`.
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      TMPDIR: tmp,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: `sk-ant-test-${randomBytes(12).toString('hex')}`,
      // No telemetry, error reports, update checks, connectivity probe or official marketplace fetch.
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      CAIRN_URL: capture.url,
      CAIRN_API_KEY: tenant.member.key,
    };
  });

  after(async () => {
    for (const child of live) killTree(child);
    const seen = new Map<string, number>();
    for (const r of model?.requests ?? []) {
      const key = `${r.method} ${r.path} ${r.model ?? ''}${r.stream ? ' stream' : ''}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    console.log(
      `# fake model requests: ${[...seen].map(([k, n]) => `${n}× ${k}`).join('; ') || 'none'}; unknown paths: ${model?.unknown.join(', ') || 'none'}`,
    );
    if (capture?.server) await stopListening(capture.server);
    await Promise.all([model?.close(), gitServer?.close(), cairn?.close()]);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('installs cairn@cairn from the repository marketplace served as git, and it is enabled', async () => {
    const url = `${gitServer.url}/cairn.git`;
    const added = await runClaude(['plugin', 'marketplace', 'add', url], env, home);
    assert.equal(added.code, 0, explain(added));
    assert.match(added.stdout, /Successfully added marketplace: cairn/, explain(added));
    const installed = await runClaude(['plugin', 'install', 'cairn@cairn'], env, home);
    assert.equal(installed.code, 0, explain(installed));
    const list = await runClaude(['plugin', 'list', '--json'], env, home);
    assert.equal(list.code, 0, explain(list));
    const plugins = JSON.parse(list.stdout) as { id: string; enabled: boolean; version: string; installPath: string }[];
    const cairnPlugin = plugins.find((p) => p.id === 'cairn@cairn');
    assert.ok(cairnPlugin?.enabled, `cairn@cairn is not enabled: ${list.stdout}`);
    const manifest = JSON.parse(readFileSync(join(REPO, 'plugins/cairn/.claude-plugin/plugin.json'), 'utf8'));
    assert.equal(cairnPlugin.version, manifest.version);
    assert.ok(existsSync(join(cairnPlugin.installPath, 'hooks', 'cairn-capture.js')));
    const text = await runClaude(['plugin', 'list'], env, home);
    assert.match(text.stdout, /cairn@cairn[\s\S]*Status: ✔ enabled/, explain(text));
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
    assert.deepEqual(settings.extraKnownMarketplaces.cairn.source, { source: 'git', url });
    assert.equal(settings.enabledPlugins['cairn@cairn'], true);
  });

  test('a session stores the prompt and the final response, redacted, searchable over MCP; the tool call is not captured', async () => {
    const { marker, run } = await session(`${USE_TOOL}: use the notes file.`);
    console.log(`# claude -p with Cairn up: ${run.ms} ms`);
    assert.equal(run.code, 0, explain(run));
    assert.equal(run.stdout.trim(), fakeAnswer(marker), explain(run));
    // The Read tool really ran: its result went back to the model.
    assert.ok(
      model.requests.some((r) => r.messages.includes('"tool_result"') && r.messages.includes(toolResultWord)),
      'the fake model never got the tool result',
    );

    const results = await search(marker);
    assert.deepEqual(
      results.map((r) => r.datapack.name),
      ['Conversations', 'Conversations'],
      `${JSON.stringify(results, null, 1)}\n${explain(run)}`,
    );
    assert.deepEqual(
      results.map((r) => r.entry.kind),
      ['conversation', 'conversation'],
    );
    const prompt = results.find((r) => r.entry.title.startsWith('Prompt'));
    const response = results.find((r) => r.entry.title.startsWith('Response'));
    assert.ok(prompt && response, `one Prompt and one Response: ${results.map((r) => r.entry.title).join(' | ')}`);
    assert.match(prompt.entry.content, new RegExp(`Remember the ${marker} deployment checklist`));
    assert.match(prompt.entry.content, /\[redacted:cairn-key\]/);
    assert.equal(response.entry.content, fakeAnswer(marker).replace(AWS_KEY, '[redacted:aws-access-key]'));
    assert.ok(
      prompt.entry.tags.includes('claude-code') && prompt.entry.tags.includes('project:billing-service'),
      prompt.entry.tags.join(','),
    );

    const stored = await conversationRows();
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!stored.all.includes(secret), `${kind} reached storage`);
    assert.ok(
      !stored.all.includes(toolWord) && !stored.all.includes(toolResultWord),
      'the tool call or its result reached storage',
    );
    assert.equal(stored.entries.length, 2, stored.entries.map((e) => e.title).join(' | '));
    assert.equal(existsSync(spoolFile()), false, 'nothing was spooled');
  });

  test('with Cairn stopped the session still finishes; the spooled turns arrive exactly once after it is back', async () => {
    await stopListening(capture.server!);
    capture.server = undefined;
    await assert.rejects(
      fetch(`${capture.url}/api/v1/capture`, { method: 'POST', signal: AbortSignal.timeout(5_000) }),
      'the capture port is closed',
    );

    const down = await session();
    console.log(`# claude -p with Cairn down: ${down.run.ms} ms`);
    assert.equal(down.run.code, 0, explain(down.run));
    assert.equal(down.run.stdout.trim(), fakeAnswer(down.marker), explain(down.run));
    assert.ok(down.run.ms < 20_000, `took ${down.run.ms} ms`);
    const spooled = readFileSync(spoolFile(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; role: string; text: string });
    assert.deepEqual(
      spooled.map((t) => t.role),
      ['user', 'assistant'],
      explain(down.run),
    );
    for (const { kind, secret } of PLANTED_SECRETS)
      assert.ok(!JSON.stringify(spooled).includes(secret), `${kind} was written to the spool`);
    assert.match(captureLog(), /spooled 1 turn: unreachable/);
    assert.equal((await search(down.marker)).length, 0, 'nothing arrived while Cairn was down');

    await startCaptureListener(capture.port);
    const receivedBefore = received.length;
    const back = await session();
    console.log(`# claude -p with Cairn back (sends the spool too): ${back.run.ms} ms`);
    assert.equal(back.run.code, 0, explain(back.run));
    assert.equal(back.run.stdout.trim(), fakeAnswer(back.marker), explain(back.run));

    for (const marker of [down.marker, back.marker]) {
      const titles = (await search(marker))
        .map((r) => `${r.datapack.name}/${r.entry.kind}/${r.entry.title.split(' ')[0]}`)
        .sort();
      assert.deepEqual(
        titles,
        ['Conversations/conversation/Prompt', 'Conversations/conversation/Response'],
        `${marker}: ${titles.join(' | ')}\n${explain(back.run)}`,
      );
    }
    // Exactly once, not merely deduplicated by Cairn: each spooled turn reached the store once.
    const sent = received.slice(receivedBefore);
    for (const { id } of spooled)
      assert.equal(
        sent.filter((s) => s === id).length,
        1,
        `spooled turn ${id} sent ${sent.filter((s) => s === id).length} times`,
      );
    assert.equal(existsSync(spoolFile()), false, 'the spool is gone once sent');
    assert.deepEqual(
      readdirSync(join(home, '.cairn')).filter((n) => n.includes('processing')),
      [],
      'no claim is left behind',
    );

    const stored = await conversationRows();
    assert.equal(stored.entries.length, 6, stored.entries.map((e) => e.title).join(' | '));
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!stored.all.includes(secret), `${kind} reached storage`);
  });
});

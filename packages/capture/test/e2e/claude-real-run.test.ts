// Issue 6, "Proved with a real client": the real `claude` CLI from npm, pointed at a local fake model
// server, with the cairn plugin installed from this repository's marketplace served as a git repository,
// captures the prompt and the final response (redacted) into a real Cairn, and keeps working while
// Cairn is down; the spooled turns arrive, once, after it is back. Everything runs on 127.0.0.1.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { listen, stopListening } from '../../../server/src/runtime/serve.js';
import { clientBin } from '../../../server/src/testing/client-bins.js';
import { callTool, connectMcpClient } from '../../../server/src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../../server/src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../../server/src/testing/test-cairn.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const CLAUDE = clientBin('claude');
const RUN_TIMEOUT_MS = 60_000;
const hasGit = spawnSync('git', ['--version']).status === 0;
const skip = !existsSync(CLAUDE) ? 'the claude CLI is not installed (npm test installs it into test-clients/)' : !hasGit ? 'git is not on PATH' : false;

/** A word no other entry holds, so a search for it finds one run's turns only. */
const word = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;

// ---------------------------------------------------------------- fake model (Anthropic Messages API)

interface ModelRequest {
  method: string;
  path: string;
  model?: string;
  stream?: boolean;
  /** The request's messages, as text, to see what the CLI sent. */
  messages: string;
}

interface FakeModel {
  url: string;
  requests: ModelRequest[];
  /** Paths the fake does not implement, logged so a CLI upgrade that calls something new is easy to see. */
  unknown: string[];
  close(): Promise<void>;
}

/** The planted secret the fake model repeats. */
const AWS_KEY = PLANTED_SECRETS.find((p) => p.kind === 'aws-access-key')!.secret;
/** What the fake model says to a prompt holding `marker`. It repeats a planted secret: responses are redacted too. */
const fakeAnswer = (marker: string) => `Fake model answer for ${marker}: noted, and I will not repeat ${AWS_KEY} anywhere.`;
/** A prompt holding this word makes the fake model call the Read tool on `toolFile` before answering. */
const USE_TOOL = 'pleasereadthenotes';

function startFakeModel(toolFile: string): Promise<FakeModel> {
  const requests: ModelRequest[] = [];
  const unknown: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      let body: { model?: string; stream?: boolean; messages?: unknown[] } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        // Not JSON: logged below with an empty body.
      }
      const messages = JSON.stringify(body.messages ?? []);
      requests.push({ method: req.method ?? '?', path, model: body.model, stream: body.stream, messages });
      if (req.method === 'POST' && path === '/v1/messages') return answerMessages(body, messages, res);
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') return json(res, 200, { input_tokens: Math.ceil(messages.length / 4) });
      // The CLI's connectivity probe (skipped under CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, answered anyway).
      if (path === '/api/hello') return json(res, 200, {});
      unknown.push(`${req.method} ${req.url}`);
      console.log(`# fake model: unknown request ${req.method} ${req.url}`);
      json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake model has no ${path}` } });
    });
  });

  function answerMessages(body: { model?: string; stream?: boolean }, messages: string, res: ServerResponse) {
    const marker = /\bmark[0-9a-f]{10}\b/.exec(messages)?.[0] ?? 'no marker';
    // The CLI sends the conversation so far: a tool_result means the tool ran and the final answer is due.
    const wantsTool = messages.includes(USE_TOOL) && !messages.includes('"tool_result"');
    const block = wantsTool ? { type: 'tool_use', id: `toolu_${randomBytes(8).toString('hex')}`, name: 'Read', input: { file_path: toolFile } } : { type: 'text', text: fakeAnswer(marker) };
    const stopReason = wantsTool ? 'tool_use' : 'end_turn';
    const message = { id: `msg_${randomBytes(8).toString('hex')}`, type: 'message', role: 'assistant', model: body.model ?? 'claude-fake', stop_sequence: null };
    const usage = { input_tokens: Math.ceil(messages.length / 4), output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (!body.stream) return json(res, 200, { ...message, content: [block], stop_reason: stopReason, usage });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
    if (block.type === 'tool_use') {
      event('content_block_start', { index: 0, content_block: { ...block, input: {} } });
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    } else {
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      // Two deltas: the CLI must assemble the text.
      const text = block.text!;
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: text.slice(0, 20) } });
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: text.slice(20) } });
    }
    event('content_block_stop', { index: 0 });
    event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } });
    event('message_stop', {});
    res.end();
  }

  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, requests, unknown, close: () => closeServer(server) });
    });
  });
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

// ---------------------------------------------------------------- git over smart HTTP (git http-backend)

/**
 * Serves the bare repositories under `root` over git's smart HTTP protocol. `claude plugin marketplace add`
 * refuses a file:// URL ("Invalid marketplace source format") and clones shallow, which the dumb protocol
 * cannot do, so a loopback `http://…/cairn.git` served by git itself is the closest local stand-in for a real host.
 */
function startGitServer(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: root,
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf('\r\n\r\n');
      const end = crlf >= 0 ? crlf : head.indexOf('\n\n');
      if (end < 0) return;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      headersSent = true;
      res.write(head.subarray(end + (crlf >= 0 ? 4 : 2)));
    });
    cgi.stdout.on('end', () => {
      if (!headersSent) res.writeHead(502);
      res.end();
    });
    cgi.stderr.on('data', (c: Buffer) => console.log(`# git http-backend: ${String(c).trim()}`));
    cgi.on('error', () => res.destroy());
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => closeServer(server) });
    });
  });
}

/** The marketplace as it is in this working tree, committed to a fresh bare repository named cairn.git. */
function marketplaceRepository(dir: string): string {
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  cpSync(join(REPO, '.claude-plugin'), join(work, '.claude-plugin'), { recursive: true });
  cpSync(join(REPO, 'plugins'), join(work, 'plugins'), { recursive: true });
  const git = (args: string[], cwd: string) => {
    const r = spawnSync('git', ['-c', 'user.name=Cairn Test', '-c', 'user.email=test@example.test', '-c', 'init.defaultBranch=main', ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  };
  git(['init', '-q'], work);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'cairn marketplace'], work);
  git(['clone', '-q', '--bare', work, join(dir, 'srv', 'cairn.git')], dir);
  return join(dir, 'srv');
}

// ---------------------------------------------------------------- running the CLI

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

const live = new Set<ChildProcess>();

/** Kills the CLI and everything it started (hooks included): it leads its own process group. */
function killTree(child: ChildProcess) {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Runs the CLI without blocking this process, which also hosts Cairn, the fake model and the git server. */
function runClaude(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(CLAUDE, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout!.on('data', (c: Buffer) => (stdout += c));
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child);
  }, RUN_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      // Hooks that outlived the CLI would be a bug of their own; they go too.
      killTree(child);
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - started), timedOut });
    });
  });
}

// ---------------------------------------------------------------- the proof

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
  const captureLog = () => (existsSync(join(home, '.cairn', 'capture.log')) ? readFileSync(join(home, '.cairn', 'capture.log'), 'utf8') : '(no capture.log)');
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
    const entries = await db.selectFrom('entry').select(['id', 'title', 'content', 'tags', 'kind']).where('kind', '=', 'conversation').execute();
    const versions = await db.selectFrom('entry_version').select(['title', 'content', 'tags']).execute();
    return { entries, versions, all: JSON.stringify([entries, versions]) };
  }

  async function search(query: string) {
    const client = await connectMcpClient(cairn.mcpUrl, tenant.member.key);
    try {
      const { results } = await callTool(client, 'search', { query, limit: 50 });
      return results as { entry: { title: string; content: string; kind: string; tags: string[] }; datapack: { name: string } }[];
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
    console.log(`# fake model requests: ${[...seen].map(([k, n]) => `${n}× ${k}`).join('; ') || 'none'}; unknown paths: ${model?.unknown.join(', ') || 'none'}`);
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
    assert.ok(prompt.entry.tags.includes('claude-code') && prompt.entry.tags.includes('project:billing-service'), prompt.entry.tags.join(','));

    const stored = await conversationRows();
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!stored.all.includes(secret), `${kind} reached storage`);
    assert.ok(!stored.all.includes(toolWord) && !stored.all.includes(toolResultWord), 'the tool call or its result reached storage');
    assert.equal(stored.entries.length, 2, stored.entries.map((e) => e.title).join(' | '));
    assert.equal(existsSync(spoolFile()), false, 'nothing was spooled');
  });

  test('with Cairn stopped the session still finishes; the spooled turns arrive exactly once after it is back', async () => {
    await stopListening(capture.server!);
    capture.server = undefined;
    await assert.rejects(fetch(`${capture.url}/api/v1/capture`, { method: 'POST', signal: AbortSignal.timeout(5_000) }), 'the capture port is closed');

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
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!JSON.stringify(spooled).includes(secret), `${kind} was written to the spool`);
    assert.match(captureLog(), /spooled 1 turn: unreachable/);
    assert.equal((await search(down.marker)).length, 0, 'nothing arrived while Cairn was down');

    await startCaptureListener(capture.port);
    const receivedBefore = received.length;
    const back = await session();
    console.log(`# claude -p with Cairn back (sends the spool too): ${back.run.ms} ms`);
    assert.equal(back.run.code, 0, explain(back.run));
    assert.equal(back.run.stdout.trim(), fakeAnswer(back.marker), explain(back.run));

    for (const marker of [down.marker, back.marker]) {
      const titles = (await search(marker)).map((r) => `${r.datapack.name}/${r.entry.kind}/${r.entry.title.split(' ')[0]}`).sort();
      assert.deepEqual(titles, ['Conversations/conversation/Prompt', 'Conversations/conversation/Response'], `${marker}: ${titles.join(' | ')}\n${explain(back.run)}`);
    }
    // Exactly once, not merely deduplicated by Cairn: each spooled turn reached the store once.
    const sent = received.slice(receivedBefore);
    for (const { id } of spooled) assert.equal(sent.filter((s) => s === id).length, 1, `spooled turn ${id} sent ${sent.filter((s) => s === id).length} times`);
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

// What claude-real-run.test.ts runs claude against: a fake model server, this repository's marketplace served as git, and the claude CLI itself.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLANTED_SECRETS } from '@cairn/contract/testing/planted-secrets';
import { clientBin } from '../../../server/src/testing/client-bins.js';

export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
export const CLAUDE = clientBin('claude');
export const RUN_TIMEOUT_MS = 60_000;

/** A word no other entry holds, so a search for it finds one run's turns only. */
export const word = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;

// ---------------------------------------------------------------- fake model (Anthropic Messages API)

export interface ModelRequest {
  method: string;
  path: string;
  model?: string;
  stream?: boolean;
  /** The request's messages, as text, to see what the CLI sent. */
  messages: string;
  /** The whole request body (system prompt, tools and messages), as sent. */
  body: string;
}

export interface FakeModel {
  url: string;
  requests: ModelRequest[];
  /** Paths the fake does not implement, logged so a CLI upgrade that calls something new is easy to see. */
  unknown: string[];
  close(): Promise<void>;
}

/** The planted secret the fake model repeats. */
export const AWS_KEY = PLANTED_SECRETS.find((p) => p.kind === 'aws-access-key')!.secret;
/** What the fake model says to a prompt holding `marker`. It repeats a planted secret: responses are redacted too. */
export const fakeAnswer = (marker: string) =>
  `Fake model answer for ${marker}: noted, and I will not repeat ${AWS_KEY} anywhere.`;
/** A prompt holding this word makes the fake model call the Read tool on `toolFile` before answering. */
export const USE_TOOL = 'pleasereadthenotes';

/** What the fake model answers with: a text or a tool call. */
export type ModelBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** Starts the fake model; `decide` may choose the answer to a request's messages (undefined: the default behaviour). */
export function startFakeModel(
  toolFile: string,
  decide?: (messages: string) => ModelBlock | undefined,
): Promise<FakeModel> {
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
      requests.push({
        method: req.method ?? '?',
        path,
        model: body.model,
        stream: body.stream,
        messages,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (req.method === 'POST' && path === '/v1/messages') return answerMessages(body, messages, res);
      if (req.method === 'POST' && path === '/v1/messages/count_tokens')
        return json(res, 200, { input_tokens: Math.ceil(messages.length / 4) });
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
    const readsNotes = messages.includes(USE_TOOL) && !messages.includes('"tool_result"');
    const block: ModelBlock =
      decide?.(messages) ??
      (readsNotes
        ? {
            type: 'tool_use',
            id: `toolu_${randomBytes(8).toString('hex')}`,
            name: 'Read',
            input: { file_path: toolFile },
          }
        : { type: 'text', text: fakeAnswer(marker) });
    const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
    const message = {
      id: `msg_${randomBytes(8).toString('hex')}`,
      type: 'message',
      role: 'assistant',
      model: body.model ?? 'claude-fake',
      stop_sequence: null,
    };
    const usage = {
      input_tokens: Math.ceil(messages.length / 4),
      output_tokens: 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    if (!body.stream) return json(res, 200, { ...message, content: [block], stop_reason: stopReason, usage });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const event = (type: string, data: object) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', {
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    });
    if (block.type === 'tool_use') {
      event('content_block_start', { index: 0, content_block: { ...block, input: {} } });
      event('content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
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

export function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function closeServer(server: Server): Promise<void> {
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
export function startGitServer(root: string): Promise<{ url: string; close(): Promise<void> }> {
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
export function marketplaceRepository(dir: string): string {
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  cpSync(join(REPO, '.claude-plugin'), join(work, '.claude-plugin'), { recursive: true });
  cpSync(join(REPO, 'plugins'), join(work, 'plugins'), { recursive: true });
  const git = (args: string[], cwd: string) => {
    const r = spawnSync(
      'git',
      ['-c', 'user.name=Cairn Test', '-c', 'user.email=test@example.test', '-c', 'init.defaultBranch=main', ...args],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  };
  git(['init', '-q'], work);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'cairn marketplace'], work);
  git(['clone', '-q', '--bare', work, join(dir, 'srv', 'cairn.git')], dir);
  return join(dir, 'srv');
}

// ---------------------------------------------------------------- running the CLI

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

export const live = new Set<ChildProcess>();

/** Kills the CLI and everything it started (hooks included): it leads its own process group. */
export function killTree(child: ChildProcess) {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Runs the CLI without blocking this process, which also hosts Cairn, the fake model and the git server. */
export function runClaude(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  return runCli(CLAUDE, args, env, cwd);
}

/** Runs an AI CLI the same way: detached, its output kept, killed with its hooks at RUN_TIMEOUT_MS or when it ends. */
export function runCli(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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

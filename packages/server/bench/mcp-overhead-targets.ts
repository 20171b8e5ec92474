// What bench/mcp-overhead.ts loads: the child processes that serve, and the requests sent to each.
import { type ChildProcess, fork } from 'node:child_process';
import { INSTALLER_USER_AGENT } from '../src/auth/mcp-auth.js';
import type { Options } from './mcp-overhead-options.js';
import type { ChildMessage, ParentMessage } from './servers.js';

export const PROTOCOL_VERSION = '2025-06-18';

export interface Target {
  name: string;
  /** The process serving it, asked for its CPU time around each load. */
  server: Child;
  /** Defaults to POST. */
  method?: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Full check of one response, run once before load: a reason it is wrong, or undefined. */
  check(status: number, contentType: string, text: string): string | undefined;
  /** Cheap check autocannon applies to every response under load. */
  looksRight(body: string): boolean;
  /** A fresh body for each request under load (a write must not repeat itself, a search asks the next question). */
  uniqueBody?: () => string;
  /** A fresh path for each GET under load. */
  uniquePath?: () => string;
}

// ---- child processes -------------------------------------------------------------------------

export interface Child {
  process: ChildProcess;
  ready: Extract<ChildMessage, { type: 'ready' }>;
}

export function startChild(args: string[]): Promise<Child> {
  const child = fork(new URL('./servers.ts', import.meta.url), args, { execArgv: ['--import', 'tsx'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`server process ${args[0]} exited (code ${code}) before it was ready`)),
    );
    child.once('message', (message: ChildMessage) => {
      if (message.type === 'ready') resolve({ process: child, ready: message });
      else
        reject(
          new Error(`server process ${args[0]} failed: ${message.type === 'failed' ? message.message : message.type}`),
        );
    });
  });
}

export function ask(child: Child, message: ParentMessage, answer: ChildMessage['type']): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    child.process.once('message', (reply: ChildMessage) => {
      if (reply.type === answer) resolve(reply);
      else reject(new Error(`server process answered ${reply.type}: ${reply.type === 'failed' ? reply.message : ''}`));
    });
    child.process.send(message);
  });
}

export async function stopChild(child: Child | undefined): Promise<void> {
  if (!child || child.process.exitCode !== null) return;
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.send({ type: 'close' } satisfies ParentMessage);
  const timer = setTimeout(() => child.process.kill(), 15_000);
  await exited;
  clearTimeout(timer);
}

// ---- targets ---------------------------------------------------------------------------------

/** Each call the next of the options' questions, round and round. */
export function nextQuestion(options: Options): () => string {
  let i = 0;
  return () => options.questions[i++ % options.questions.length]!;
}

export function baselineTarget(baseline: Child): Target {
  return {
    name: 'baseline (bare Hono JSON)',
    server: baseline,
    url: baseline.ready.url,
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
    check: (status, _type, text) =>
      status === 200 && text === '{"ok":true}' ? undefined : `status ${status}, body ${text}`,
    looksRight: (body) => body === '{"ok":true}',
  };
}

/** The stock SDK v2 handler with a trivial echo tool: the floor for any MCP tool call on this machine. */
export function sdkEchoTarget(echo: Child): Target {
  return {
    name: 'anchor: stock SDK v2 echo (tools/call)',
    server: echo,
    url: echo.ready.url,
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hello' } },
    }),
    check: (status, type, text) =>
      checkMcpResponse(status, type, text, (r) =>
        r.content?.[0]?.text === 'hello' ? undefined : `unexpected echo ${JSON.stringify(r)}`,
      ),
    looksRight: (body) => body.includes('"result"') && body.includes('hello'),
  };
}

/** The same search through the JSON API: the domain work without the MCP layer, to isolate MCP's own cost. */
export function jsonApiSearchTarget(cairn: Child, options: Options): Target {
  const url = new URL('/api/v1/search', cairn.ready.url);
  const question = nextQuestion(options);
  url.searchParams.set('q', options.questions[0]!);
  return {
    name: 'JSON API search (no MCP)',
    server: cairn,
    method: 'GET',
    url: url.toString(),
    uniquePath: () => `/api/v1/search?q=${encodeURIComponent(question())}`,
    headers: { Authorization: `Bearer ${cairn.ready.key}` },
    body: '',
    check: (status, _type, text) => {
      const hits = status === 200 ? ((JSON.parse(text) as { results?: unknown[] }).results?.length ?? 0) : 0;
      return hits >= 3 ? undefined : `status ${status}, ${hits} results: ${text.slice(0, 300)}`;
    },
    looksRight: (body) => body.startsWith('{"results":['),
  };
}

export function mcpTargets(cairn: Child, options: Options, prefix = ''): Target[] {
  const { url, key, seed } = cairn.ready;
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    Authorization: `Bearer ${key}`,
    'User-Agent': INSTALLER_USER_AGENT,
  };
  const target = (
    name: string,
    method: string,
    params: unknown,
    check: (result: any) => string | undefined,
  ): Target => ({
    name: `${prefix}${name}`,
    server: cairn,
    url,
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    check: (status, type, text) => checkMcpResponse(status, type, text, check),
    // A tool failure is still a 200 with a result, so look for the flag as well.
    looksRight: (body) => body.includes('"result"') && !body.includes('"isError":true'),
  });
  return [
    target(
      'initialize',
      'initialize',
      { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'cairn-bench', version: '1.0.0' } },
      (r) =>
        r.serverInfo?.name === 'cairn' ? undefined : `unexpected initialize result ${JSON.stringify(r).slice(0, 300)}`,
    ),
    target('tools/call list_datapacks', 'tools/call', { name: 'list_datapacks', arguments: {} }, (r) => {
      const total = (r.structuredContent?.datapacks ?? []).reduce(
        (n: number, d: { entryCount: number }) => n + d.entryCount,
        0,
      );
      return total === seed?.created
        ? undefined
        : `list_datapacks counts ${total} entries, ${seed?.created} were seeded`;
    }),
    {
      ...target(
        'tools/call search',
        'tools/call',
        { name: 'search', arguments: { query: options.questions[0] } },
        (r) => {
          const hits = r.structuredContent?.results?.length ?? 0;
          return hits >= 3
            ? undefined
            : `search "${options.questions[0]}" found ${hits} entries; pick a --query that matches several`;
        },
      ),
      uniqueBody: toolCall('search', 'query', nextQuestion(options)),
    },
    {
      ...target(
        'tools/call get_guidance',
        'tools/call',
        { name: 'get_guidance', arguments: { task: options.questions[0] } },
        (r) =>
          r.structuredContent ? undefined : `get_guidance gave no structured result ${JSON.stringify(r).slice(0, 300)}`,
      ),
      uniqueBody: toolCall('get_guidance', 'task', nextQuestion(options)),
    },
    {
      ...target(
        'tools/call save_entry',
        'tools/call',
        {
          name: 'save_entry',
          arguments: { kind: 'note', title: 'Benchmark note 0', content: 'A note saved by the benchmark, number 0.' },
        },
        (r) =>
          r.structuredContent?.entry?.id ? undefined : `save_entry saved nothing ${JSON.stringify(r).slice(0, 300)}`,
      ),
      // Each saved note differs in more than a number, so none is refused as a near-duplicate of another.
      uniqueBody: () => {
        const n = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
        return JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'save_entry',
            arguments: {
              kind: 'note',
              title: `Benchmark ${n}`,
              content: `Saved under load as ${n} ${n.split('').reverse().join('')}.`,
            },
          },
        });
      },
    },
  ];
}

/** A tools/call body per request whose one argument is the next text. */
export function toolCall(name: string, argument: string, text: () => string): () => string {
  return () =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: { [argument]: text() } },
    });
}

export function checkMcpResponse(
  status: number,
  contentType: string,
  text: string,
  check: (result: any) => string | undefined,
): string | undefined {
  if (status !== 200) return `status ${status}: ${text.slice(0, 500)}`;
  // The stateless handler may answer as JSON or as one SSE event; accept both.
  const json = contentType.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
        .pop()
    : text;
  const message = JSON.parse(json ?? 'null');
  if (!message?.result) return `not a JSON-RPC result: ${text.slice(0, 500)}`;
  if (message.result.isError) return `tool error: ${JSON.stringify(message.result.content).slice(0, 500)}`;
  return check(message.result);
}

export async function verify(target: Target): Promise<void> {
  const response = await fetch(target.url, {
    method: target.method ?? 'POST',
    headers: target.headers,
    ...(target.method !== 'GET' && { body: target.body }),
  });
  const text = await response.text();
  const problem = target.check(response.status, response.headers.get('content-type') ?? '', text);
  if (problem) throw new Error(`${target.name} does not answer correctly, refusing to benchmark it: ${problem}`);
  if (!target.looksRight(text))
    throw new Error(`${target.name}: a correct response fails the under-load check: ${text.slice(0, 300)}`);
}

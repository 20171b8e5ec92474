import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { type CaptureRun, keepUnsent, runCapture } from './capture.js';
import { type CapturePaths, capturePaths } from './paths.js';
import { appendToSpool } from './spool.js';
import { type StubCaptureServer, startStubCaptureServer, unreachableUrl } from './testing/stub-capture-server.js';
import type { CaptureTurn } from './turn.js';

let stub: StubCaptureServer;
let paths: CapturePaths;
before(async () => {
  stub = await startStubCaptureServer();
});
after(() => stub.close());
beforeEach(() => {
  stub.mode = 'ok';
  stub.requests.length = 0;
  stub.stored.clear();
  stub.arrivals.clear();
  paths = capturePaths(mkdtempSync(join(tmpdir(), 'cairn-capture-run-')));
});

function run(client: string, event: string, stdin: string, extra: Partial<CaptureRun> = {}): Promise<void> {
  return runCapture({
    client,
    event,
    stdin,
    cwd: '/work/site',
    paths,
    now: new Date(),
    signal: AbortSignal.timeout(1500),
    env: { CAIRN_URL: stub.url, CAIRN_API_KEY: stub.apiKey },
    ...extra,
  });
}
const prompt = (text: string, session = 's-1') =>
  JSON.stringify({ session_id: session, cwd: '/src/billing', prompt: text, transcript_path: '/x.jsonl' });
const spooledIds = () =>
  existsSync(paths.spool)
    ? readFileSync(paths.spool, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as CaptureTurn).id)
    : [];
const log = () => (existsSync(paths.log) ? readFileSync(paths.log, 'utf8') : '');

describe('runCapture', () => {
  it('sends the prompt with the contract headers and nothing but the turn fields', async () => {
    await run('claude-code', 'prompt', prompt('always use pnpm'));
    assert.equal(stub.requests.length, 1);
    const request = stub.requests[0]!;
    assert.equal(request.url, '/api/v1/capture');
    assert.equal(request.headers.authorization, `Bearer ${stub.apiKey}`);
    assert.equal(request.headers['user-agent'], 'cairn-capture/1.0');
    assert.equal(request.headers['content-type'], 'application/json');
    const body = JSON.parse(request.body) as { turns: CaptureTurn[] };
    assert.deepEqual(Object.keys(body), ['turns']);
    assert.deepEqual(
      { ...body.turns[0], id: 'x', at: 'x' },
      {
        id: 'x',
        role: 'user',
        text: 'always use pnpm',
        client: 'claude-code',
        sessionId: 's-1',
        project: 'billing',
        at: 'x',
      },
    );
    assert.equal(log(), '');
  });

  it('sends the final response of a Stop, never tool calls or transcripts', async () => {
    const stdin = JSON.stringify({
      session_id: 's',
      last_assistant_message: 'All tests pass.',
      tool_input: { command: 'rm -rf /' },
      tool_response: 'TOOL-OUTPUT',
      transcript_path: '/secret/path',
    });
    await run('codex', 'stop', stdin);
    const body = stub.requests[0]!.body;
    assert.match(body, /All tests pass\./);
    for (const leak of ['rm -rf', 'TOOL-OUTPUT', '/secret/path']) assert.ok(!body.includes(leak), leak);
  });

  it('no planted secret reaches the request body or the spool file', async () => {
    await run('claude-code', 'prompt', prompt(plantedSecretsText));
    stub.mode = 'down-500';
    await run(
      'claude-code',
      'stop',
      JSON.stringify({ session_id: 's-1', last_assistant_message: `Using ${plantedSecretsText}` }),
    );
    const spool = readFileSync(paths.spool, 'utf8');
    for (const { kind, secret } of PLANTED_SECRETS) {
      assert.ok(!stub.requests.some((r) => r.body.includes(secret)), `${kind} was sent`);
      assert.ok(!spool.includes(secret), `${kind} was spooled`);
      assert.ok(!log().includes(secret), `${kind} was logged`);
    }
  });

  for (const mode of ['down-500', 'rate-limited', 'slow'] as const) {
    it(`spools (0600) when the server is ${mode}`, async () => {
      stub.mode = mode;
      await run('claude-code', 'prompt', prompt('keep me'), { signal: AbortSignal.timeout(300) });
      assert.equal(spooledIds().length, 1);
      assert.equal(statSync(paths.spool).mode & 0o777, 0o600);
      assert.match(log(), /spooled 1 turn: (HTTP 503|HTTP 429|timed out)/);
      assert.ok(!log().includes('keep me'));
    });
  }

  it('spools when nothing listens', async () => {
    await run('claude-code', 'prompt', prompt('keep me'), {
      env: { CAIRN_URL: await unreachableUrl(), CAIRN_API_KEY: 'cairn_tkn_x' },
    });
    assert.equal(spooledIds().length, 1);
    assert.match(log(), /unreachable \(ECONNREFUSED\)/);
  });

  it('the hard exit spools a turn whose request has not settled, once, and the late answer adds nothing', async () => {
    stub.mode = 'slow';
    const inFlight = new Set<CaptureTurn>();
    const abort = new AbortController();
    const capturing = run('claude-code', 'prompt', prompt('keep me when time runs out'), {
      inFlight,
      signal: abort.signal,
    });
    while (stub.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(inFlight.size, 1, 'the turn is out');
    keepUnsent({ paths, inFlight, client: 'claude-code', event: 'prompt' });
    assert.equal(spooledIds().length, 1, 'spooled by the exit handler');
    abort.abort();
    await capturing;
    assert.equal(spooledIds().length, 1, 'not spooled twice when the request then fails');
    assert.match(log(), /spooled 1 turn: the hook's time ran out/);
  });

  it('drops a turn the server rejects (4xx) with a reason-only log line', async () => {
    stub.mode = 'bad-request';
    await run('claude-code', 'prompt', prompt('do not keep'));
    assert.deepEqual(spooledIds(), []);
    assert.match(log(), /dropped 1 turn: HTTP 400 invalid_input/);
    await run('claude-code', 'prompt', prompt('wrong key'), {
      env: { CAIRN_URL: stub.url, CAIRN_API_KEY: 'cairn_tkn_wrongwrongwrong' },
    });
    assert.match(log(), /dropped 1 turn: HTTP 401 unauthenticated/);
    assert.ok(!log().includes('cairn_tkn_'));
  });

  it('after a success sends the spool oldest first, in batches of at most 50, exactly once', async () => {
    stub.mode = 'down-500';
    for (let i = 0; i < 3; i++) await run('claude-code', 'prompt', prompt(`offline ${i}`));
    const older = Array.from(
      { length: 117 },
      (_, i): CaptureTurn => ({
        id: `old-${i}`,
        role: 'user',
        text: `old ${i}`,
        client: 'codex',
        at: new Date(i).toISOString(),
      }),
    );
    appendToSpool(paths, older);
    stub.mode = 'ok';
    await run('claude-code', 'prompt', prompt('back online'));
    const sizes = stub.requests
      .filter((r) => r.body.includes('"turns"'))
      .map((r) => (JSON.parse(r.body) as { turns: unknown[] }).turns.length);
    assert.deepEqual(sizes.slice(-4), [1, 50, 50, 20]);
    assert.equal(stub.stored.size, 121);
    assert.ok([...stub.arrivals.values()].every((n) => n === 1));
    assert.deepEqual(spooledIds(), []);
    // The next hook finds nothing left to send.
    await run('claude-code', 'prompt', prompt('later'));
    assert.equal(stub.stored.size, 122);
    assert.ok([...stub.arrivals.values()].every((n) => n === 1));
  });

  it('two hooks finishing at once send each spooled turn exactly once and lose none', async () => {
    appendToSpool(
      paths,
      Array.from(
        { length: 80 },
        (_, i): CaptureTurn => ({
          id: `sp-${i}`,
          role: 'assistant',
          text: `r ${i}`,
          client: 'claude-code',
          at: new Date(i).toISOString(),
        }),
      ),
    );
    await Promise.all([
      run('claude-code', 'prompt', prompt('a')),
      run('claude-code', 'stop', JSON.stringify({ session_id: 's', last_assistant_message: 'b' })),
    ]);
    assert.equal(stub.stored.size, 82);
    assert.ok([...stub.arrivals.values()].every((n) => n === 1));
    assert.deepEqual(spooledIds(), []);
  });

  it('keeps the spool when the server fails mid-drain, and drops only a rejected turn from it', async () => {
    appendToSpool(paths, [
      { id: 'good-1', role: 'user', text: 'g1', client: 'codex', at: '2026-01-01T00:00:00.000Z' },
      { id: 'bad', role: 'user', text: 'b', client: 'codex', at: '2026-01-01T00:00:01.000Z' },
      { id: 'good-2', role: 'user', text: 'g2', client: 'codex', at: '2026-01-01T00:00:02.000Z' },
    ]);
    stub.mode = 'refuse-bad';
    await run('claude-code', 'prompt', prompt('now'));
    assert.deepEqual([...stub.stored.keys()].filter((k) => k.startsWith('good')).sort(), ['good-1', 'good-2']);
    assert.deepEqual(spooledIds(), []);
    assert.match(log(), /dropped 1 spooled turn: HTTP 400 invalid_input/);
  });

  it('does nothing without a configuration, and records why', async () => {
    await run('claude-code', 'prompt', prompt('hello'), { env: {} });
    assert.equal(stub.requests.length, 0);
    assert.deepEqual(spooledIds(), []);
    assert.match(log(), /claude-code prompt no configuration/);
  });

  it('records a wrong invocation without sending anything', async () => {
    await run('cursor', 'prompt', prompt('hello'));
    assert.equal(stub.requests.length, 0);
    assert.match(
      log(),
      /usage: cairn-capture <claude-code\|codex\|gemini-cli\|kiro-cli\|kiro-ide> <prompt\|stop\|edit>/,
    );
  });
});

// The bundled file, spawned for real the way hooks run it, against a real Cairn. A recording stub is
// used only where a real Cairn cannot help: to see the exact bytes sent, and as a server that never answers.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, before, beforeEach, describe, it } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { runFileOnEachBackend } from '../../server/src/testing/backends.js';
import { type CaptureCairn, startCaptureCairn } from '../../server/src/testing/capture-cairn.js';
import { type CapturePaths, capturePaths } from '../src/paths.js';
import { startStubCaptureServer, unreachableUrl } from '../src/testing/stub-capture-server.js';
import { freshBundle, type HookRun, runHook } from './run-hook.js';

runFileOnEachBackend();

/**
 * The hook promises the agent to be gone within 2 s. Wall-clock limits flake on a loaded machine, so
 * the bound checked is one a broken deadline cannot meet: exiting well before a 10 s server answers.
 */
const NEVER_MS = 9_000;

let script: string;
let cairn: CaptureCairn;
let home: string;
let paths: CapturePaths;
before(async () => {
  script = await freshBundle();
});
beforeEach(async () => {
  cairn = await startCaptureCairn();
  home = mkdtempSync(join(tmpdir(), 'cairn-capture-home-'));
  paths = capturePaths(home);
});
afterEach(() => cairn.close());

const env = () => ({ CAIRN_URL: cairn.url, CAIRN_API_KEY: cairn.apiKey });
const claudePrompt = (text: string) =>
  JSON.stringify({ session_id: 'sess-1', cwd: '/src/billing', prompt: text, hook_event_name: 'UserPromptSubmit' });
function assertQuiet(run: HookRun) {
  assert.equal(run.code, 0);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, '');
}

describe('the bundled capture script', () => {
  it("captures each client's input shape into a real Cairn", async (t) => {
    // One after another, as an agent runs them: six Node processes started at once on a loaded 2-core machine
    // can each miss the hook's own stdin deadline (0.8 s), which drops the turn by design rather than stall the agent.
    const hooks: (() => Promise<HookRun>)[] = [
      () => runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('cc prompt') }),
      () =>
        runHook(script, ['claude-code', 'stop'], {
          home,
          env: env(),
          stdin: JSON.stringify({ session_id: 'sess-1', last_assistant_message: 'cc answer', stop_hook_active: false }),
        }),
      () =>
        runHook(script, ['codex', 'stop'], {
          home,
          env: env(),
          stdin: JSON.stringify({
            session_id: 'cx',
            turn_id: 't1',
            cwd: '/w/api',
            hook_event_name: 'Stop',
            last_assistant_message: 'codex answer',
            stop_hook_active: false,
          }),
        }),
      () =>
        runHook(script, ['kiro-cli', 'prompt'], {
          home,
          env: env(),
          stdin: JSON.stringify({ hook_event_name: 'userPromptSubmit', cwd: '/k/site', prompt: 'kiro cli prompt' }),
        }),
      () =>
        runHook(script, ['kiro-ide', 'prompt'], {
          home,
          env: { ...env(), USER_PROMPT: 'kiro ide prompt' },
          stdin: null,
        }),
      () => runHook(script, ['kiro-ide', 'stop'], { home, env: env(), stdin: null }),
    ];
    const runs: HookRun[] = [];
    for (const hook of hooks) runs.push(await hook());
    for (const run of runs) assertQuiet(run);
    t.diagnostic(`one hook invocation, start to exit: ${runs.map((r) => r.ms).join(', ')} ms`);
    const stored = (await cairn.turns()).map(
      (turn) => `${turn.client} ${turn.role} ${turn.text} ${turn.project ?? '-'}`,
    );
    // On a loaded machine a hook may give up on a slow answer (its deadline is 1.4 s) and spool its turn
    // for the next hook to send: deferred, not lost, and already in the shape Cairn receives.
    const spooled = existsSync(paths.spool)
      ? readFileSync(paths.spool, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { client: string; role: string; text: string; project?: string })
          .map((turn) => `${turn.client} ${turn.role} ${turn.text} ${turn.project ?? '-'}`)
      : [];
    if (spooled.length) t.diagnostic(`spooled for later (slow answers): ${spooled.join('; ')}`);
    // Without a cwd in the input (Claude Code's Stop, Kiro IDE) the project is the hook's working directory.
    const here = basename(tmpdir()).toLowerCase();
    assert.deepEqual([...stored, ...spooled].sort(), [
      `claude-code assistant cc answer ${here}`,
      'claude-code user cc prompt billing',
      'codex assistant codex answer api',
      'kiro-cli user kiro cli prompt site',
      `kiro-ide user kiro ide prompt ${here}`,
    ]);
  });

  it('sends no planted secret (the exact bytes, recorded before any server-side redaction)', async () => {
    const recorder = await startStubCaptureServer();
    try {
      assertQuiet(
        await runHook(script, ['claude-code', 'prompt'], {
          home,
          env: { CAIRN_URL: recorder.url, CAIRN_API_KEY: recorder.apiKey },
          stdin: claudePrompt(plantedSecretsText),
        }),
      );
      // The turn, and the prompt as get_guidance's task.
      assert.deepEqual(recorder.requests.map((r) => r.url).sort(), ['/api/v1/capture', '/mcp']);
      for (const { kind, secret } of PLANTED_SECRETS)
        assert.ok(!recorder.requests.some((r) => r.body.includes(secret)), `${kind} was sent`);
    } finally {
      await recorder.close();
    }
  });

  it('spools (0600) when Cairn is unreachable, then drains the spool into Cairn exactly once when it is back', async () => {
    const away = { CAIRN_URL: await unreachableUrl(), CAIRN_API_KEY: cairn.apiKey };
    assertQuiet(
      await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: away,
        stdin: claudePrompt(`offline ${plantedSecretsText}`),
      }),
    );
    assertQuiet(
      await runHook(script, ['claude-code', 'stop'], {
        home,
        env: away,
        stdin: JSON.stringify({ session_id: 'sess-1', last_assistant_message: 'offline answer' }),
      }),
    );
    const spool = readFileSync(paths.spool, 'utf8');
    assert.equal(spool.trim().split('\n').length, 2);
    assert.equal(statSync(paths.spool).mode & 0o777, 0o600);
    assert.equal(statSync(paths.dir).mode & 0o777, 0o700);
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!spool.includes(secret), `${kind} was spooled`);

    assertQuiet(
      await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('online again') }),
    );
    assertQuiet(
      await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('and once more') }),
    );
    const texts = (await cairn.turns()).map((t) => t.text);
    assert.equal(texts.length, 4);
    assert.ok(texts.includes('offline answer') && texts.includes('online again') && texts.includes('and once more'));
    assert.equal(cairn.arrivals.size, 4);
    assert.ok(
      [...cairn.arrivals.values()].every((n) => n === 1),
      `a turn reached Cairn twice: ${[...cairn.arrivals.values()]}`,
    );
    assert.equal(existsSync(paths.spool), false);
  });

  it('a revoked key: the turn is dropped with a logged reason, nothing stored, the key never logged', async () => {
    const store = cairn.server.cairn.store;
    for (const key of await store.listApiKeys(cairn.userId)) await store.revokeApiKey(key.id, new Date().toISOString());
    assertQuiet(
      await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('with a revoked key') }),
    );
    assert.deepEqual(await cairn.turns(), []);
    assert.equal(existsSync(paths.spool), false, 'a refused key is not retried forever');
    const log = readFileSync(paths.log, 'utf8');
    assert.match(log, /HTTP 401/);
    assert.ok(!log.includes(cairn.apiKey) && !log.includes('with a revoked key'));
  });

  it('exits long before a server that never answers would, and keeps the turn', async (t) => {
    const held = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      held.add(socket);
      socket.resume(); // reads and ignores the request, so the socket sees the hook hang up
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const run = await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: { CAIRN_URL: `http://127.0.0.1:${port}`, CAIRN_API_KEY: cairn.apiKey },
        stdin: claudePrompt('silent server'),
      });
      assertQuiet(run);
      t.diagnostic(`against a server that never answers: ${run.ms} ms`);
      assert.ok(run.ms < NEVER_MS, `took ${run.ms} ms`);
      assert.equal(readFileSync(paths.spool, 'utf8').trim().split('\n').length, 1);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('exits when the client never closes stdin', async () => {
    const run = await runHook(script, ['codex', 'prompt'], { home, env: env(), stdin: null });
    assertQuiet(run);
    assert.ok(run.ms < NEVER_MS, `took ${run.ms} ms`);
  });

  it('refuses a config file others can read: sends nothing, logs the reason, never the key', async () => {
    mkdirSync(paths.dir, { mode: 0o700 });
    writeFileSync(paths.config, JSON.stringify({ url: cairn.url, apiKey: cairn.apiKey }), { mode: 0o644 });
    assertQuiet(await runHook(script, ['claude-code', 'prompt'], { home, stdin: claudePrompt('hello') }));
    assert.deepEqual(await cairn.turns(), []);
    const log = readFileSync(paths.log, 'utf8');
    assert.match(log, /mode 644/);
    assert.ok(!log.includes(cairn.apiKey) && !log.includes('hello'));
  });
});

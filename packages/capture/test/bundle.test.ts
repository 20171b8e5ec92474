// The bundled file, spawned for real the way hooks run it, against a local stub of the capture endpoint.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { capturePaths, type CapturePaths } from '../src/paths.js';
import { startStubCaptureServer, unreachableUrl, type StubCaptureServer } from '../src/testing/stub-capture-server.js';
import { freshBundle, runHook, type HookRun } from './run-hook.js';

/** The promise to the agent: 2 s. The margin covers a loaded CI machine starting node. */
const LIMIT_MS = 2_000;
const SLOW_LIMIT_MS = 2_500;

let script: string;
let stub: StubCaptureServer;
let home: string;
let paths: CapturePaths;
before(async () => {
  [script, stub] = await Promise.all([freshBundle(), startStubCaptureServer()]);
});
after(() => stub.close());
beforeEach(() => {
  stub.mode = 'ok';
  stub.requests.length = 0;
  stub.stored.clear();
  stub.arrivals.clear();
  home = mkdtempSync(join(tmpdir(), 'cairn-capture-home-'));
  paths = capturePaths(home);
});

const env = () => ({ CAIRN_URL: stub.url, CAIRN_API_KEY: stub.apiKey });
const claudePrompt = (text: string) => JSON.stringify({ session_id: 'sess-1', cwd: '/src/billing', prompt: text, hook_event_name: 'UserPromptSubmit' });
function assertQuiet(run: HookRun, limit = LIMIT_MS) {
  assert.equal(run.code, 0);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, '');
  assert.ok(run.ms < limit, `took ${run.ms} ms`);
}

describe('the bundled capture script', () => {
  it('captures each client\'s input shape', async (t) => {
    const runs = await Promise.all([
      runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('cc prompt') }),
      runHook(script, ['claude-code', 'stop'], { home, env: env(), stdin: JSON.stringify({ session_id: 'sess-1', last_assistant_message: 'cc answer', stop_hook_active: false }) }),
      runHook(script, ['codex', 'stop'], { home, env: env(), stdin: JSON.stringify({ session_id: 'cx', turn_id: 't1', cwd: '/w/api', hook_event_name: 'Stop', last_assistant_message: 'codex answer', stop_hook_active: false }) }),
      runHook(script, ['kiro-cli', 'prompt'], { home, env: env(), stdin: JSON.stringify({ hook_event_name: 'userPromptSubmit', cwd: '/k/site', prompt: 'kiro cli prompt' }) }),
      runHook(script, ['kiro-ide', 'prompt'], { home, env: { ...env(), USER_PROMPT: 'kiro ide prompt' }, stdin: null }),
      runHook(script, ['kiro-ide', 'stop'], { home, env: env(), stdin: null }),
    ]);
    for (const run of runs) assertQuiet(run);
    t.diagnostic(`one hook invocation, start to exit: ${runs.map((r) => r.ms).join(', ')} ms`);
    const got = [...stub.stored.values()].map((turn) => `${turn.client} ${turn.role} ${turn.text} ${turn.project ?? '-'}`).sort();
    // Without a cwd in the input (Claude Code's Stop, Kiro IDE) the project is the hook's working directory.
    const here = basename(tmpdir());
    assert.deepEqual(got, [
      `claude-code assistant cc answer ${here}`,
      'claude-code user cc prompt billing',
      'codex assistant codex answer api',
      'kiro-cli user kiro cli prompt site',
      `kiro-ide user kiro ide prompt ${here}`,
    ]);
  });

  it('sends no planted secret', async () => {
    assertQuiet(await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt(plantedSecretsText) }));
    assert.equal(stub.requests.length, 1);
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!stub.requests[0]!.body.includes(secret), `${kind} was sent`);
  });

  it('spools (0600) when Cairn is unreachable, quietly and fast, then drains the spool exactly once when it is back', async () => {
    const away = { CAIRN_URL: await unreachableUrl(), CAIRN_API_KEY: stub.apiKey };
    assertQuiet(await runHook(script, ['claude-code', 'prompt'], { home, env: away, stdin: claudePrompt(`offline ${plantedSecretsText}`) }));
    assertQuiet(await runHook(script, ['claude-code', 'stop'], { home, env: away, stdin: JSON.stringify({ session_id: 'sess-1', last_assistant_message: 'offline answer' }) }));
    const spool = readFileSync(paths.spool, 'utf8');
    assert.equal(spool.trim().split('\n').length, 2);
    assert.equal(statSync(paths.spool).mode & 0o777, 0o600);
    assert.equal(statSync(paths.dir).mode & 0o777, 0o700);
    for (const { kind, secret } of PLANTED_SECRETS) assert.ok(!spool.includes(secret), `${kind} was spooled`);

    assertQuiet(await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('online again') }));
    assertQuiet(await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('and once more') }));
    assert.equal(stub.stored.size, 4);
    assert.ok([...stub.arrivals.values()].every((n) => n === 1), 'a turn arrived twice');
    assert.equal(existsSync(paths.spool), false);
  });

  it('exits within the deadline when the server sleeps 10 s, and keeps the turn', async (t) => {
    stub.mode = 'slow';
    const run = await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: claudePrompt('slow server') });
    assertQuiet(run, SLOW_LIMIT_MS);
    t.diagnostic(`against a 10 s server: ${run.ms} ms`);
    assert.equal(readFileSync(paths.spool, 'utf8').trim().split('\n').length, 1);
  });

  it('exits within the deadline when the client never closes stdin', async () => {
    const run = await runHook(script, ['codex', 'prompt'], { home, env: env(), stdin: null });
    assertQuiet(run);
  });

  it('refuses a config file others can read: sends nothing, logs the reason, never the key', async () => {
    mkdirSync(paths.dir, { mode: 0o700 });
    writeFileSync(paths.config, JSON.stringify({ url: stub.url, apiKey: stub.apiKey }), { mode: 0o644 });
    assertQuiet(await runHook(script, ['claude-code', 'prompt'], { home, stdin: claudePrompt('hello') }));
    assert.equal(stub.requests.length, 0);
    const log = readFileSync(paths.log, 'utf8');
    assert.match(log, /mode 644/);
    assert.ok(!log.includes(stub.apiKey) && !log.includes('hello'));
  });
});

// The bundled hook, spawned as clients run it, handing the agent what a real Cairn's get_guidance
// gives: at a prompt (the repository's remote names the project), after a file write (the rules
// scoped to that file), each rule once a session; and nothing, quickly, when Cairn does not answer.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PLANTED_SECRETS, plantedSecretsText } from '@cairn/contract/testing/planted-secrets';
import { runFileOnEachBackend } from '../../server/src/testing/backends.js';
import { createTenant, type TestTenant } from '../../server/src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../server/src/testing/test-cairn.js';
import { type CapturePaths, capturePaths } from '../src/paths.js';
import { startStubCaptureServer } from '../src/testing/stub-capture-server.js';
import { checkout, MARK, seedRules } from './guidance-rules.fixture.js';
import { freshBundle, type HookRun, runHook } from './run-hook.js';

runFileOnEachBackend();

let script: string;
let cairn: TestCairn;
let tenant: TestTenant;
let repo: string;
let home: string;
let paths: CapturePaths;
before(async () => {
  script = await freshBundle();
  cairn = await startTestCairn();
  tenant = await createTenant(cairn.cairn);
  await seedRules(cairn, tenant);
  repo = checkout(mkdtempSync(join(tmpdir(), 'cairn-guidance-repo-')));
});
after(() => cairn.close());
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cairn-guidance-home-'));
  paths = capturePaths(home);
});

const env = () => ({ CAIRN_URL: cairn.baseUrl, CAIRN_API_KEY: tenant.member.key });
const prompt = (text: string, session = 'sess-1', cwd = join(repo, 'src', 'invoices')) =>
  JSON.stringify({ session_id: session, cwd, prompt: text, hook_event_name: 'UserPromptSubmit' });
const write = (file: string, session = 'sess-1') =>
  JSON.stringify({
    session_id: session,
    cwd: repo,
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: file, content: 'ALTER TABLE invoices ADD COLUMN vat int;' },
    tool_response: { success: true },
  });
/** What the agent is handed: the JSON Claude Code and Codex read, checked for its shape, and its text. */
function context(run: HookRun, hookEventName: string): string {
  assert.equal(run.code, 0);
  assert.equal(run.stderr, '');
  const out = JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.deepEqual(Object.keys(out), ['hookSpecificOutput']);
  assert.equal(out.hookSpecificOutput.hookEventName, hookEventName);
  return out.hookSpecificOutput.additionalContext;
}
function assertSilent(run: HookRun) {
  assert.equal(run.code, 0);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, '');
}
async function capturedPrompts(): Promise<string[]> {
  const pack = (await cairn.cairn.store.findDatapacks([{ scope: 'personal', ownerId: tenant.member.id }])).find(
    (d) => d.name === 'Conversations',
  );
  return pack ? (await cairn.cairn.store.listEntries(pack.id, { limit: 100, offset: 0 })).map((e) => e.content) : [];
}

describe('the guidance hook', () => {
  it("at a prompt: the organization's always rule and the project's (the git remote's name), not another project's; the prompt is still captured", async () => {
    const text = context(
      await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: prompt('Add VAT to invoices') }),
      'UserPromptSubmit',
    );
    assert.match(text, /^Cairn, your organization's knowledge service/);
    assert.ok(text.includes(MARK.always), text);
    assert.ok(text.includes(MARK.project), text);
    assert.ok(!text.includes(MARK.other), 'a rule of another project was given');
    assert.ok(!text.includes(MARK.migrations), 'a file rule was given without its file');
    const state = readFileSync(paths.given, 'utf8');
    assert.equal(statSync(paths.given).mode & 0o777, 0o600);
    assert.ok(
      !state.includes('Add VAT') && !state.includes('sess-1'),
      'the state file holds ids only, the session hashed',
    );
    const captured = await capturedPrompts();
    // Deferred, not lost, when a loaded machine makes capture give up on a slow answer.
    const spooled = existsSync(paths.spool) ? readFileSync(paths.spool, 'utf8') : '';
    assert.ok(
      captured.includes('Add VAT to invoices') || spooled.includes('Add VAT to invoices'),
      `captured: ${captured.join(' | ')}`,
    );
  });

  it('gives a session each rule once: the next prompt in it gets nothing new; another session gets them again', async () => {
    context(
      await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: prompt('Add VAT to invoices') }),
      'UserPromptSubmit',
    );
    assertSilent(
      await runHook(script, ['claude-code', 'prompt'], { home, env: env(), stdin: prompt('Now round VAT to cents') }),
    );
    const other = context(
      await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: env(),
        stdin: prompt('Add VAT to invoices', 'sess-2'),
      }),
      'UserPromptSubmit',
    );
    assert.ok(other.includes(MARK.always) && other.includes(MARK.project), other);
  });

  it('after a write under migrations/: the rule scoped to it (path made relative to the repository), once a session; other files get nothing', async () => {
    const before = (await capturedPrompts()).length;
    assertSilent(
      await runHook(script, ['claude-code', 'edit'], {
        home,
        env: env(),
        stdin: write(join(repo, 'src', 'invoices', 'vat.ts')),
      }),
    );
    const text = context(
      await runHook(script, ['claude-code', 'edit'], {
        home,
        env: env(),
        stdin: write(join(repo, 'migrations', '0042_add_vat.sql')),
      }),
      'PostToolUse',
    );
    assert.ok(text.includes('migrations/0042_add_vat.sql'), text);
    assert.ok(text.includes(MARK.migrations) && text.includes('[file: migrations/**]'), text);
    assert.ok(
      !text.includes(MARK.always) && !text.includes(MARK.project) && !text.includes(MARK.other),
      'only the rules scoped to the file',
    );
    assertSilent(
      await runHook(script, ['claude-code', 'edit'], {
        home,
        env: env(),
        stdin: write(join(repo, 'migrations', '0043_more.sql')),
      }),
    );
    assert.equal((await capturedPrompts()).length, before, 'a file write captures nothing');
    assert.equal(existsSync(paths.spool), false);
  });

  it('Codex: the files of an apply_patch; Kiro CLI: plain text on stdout at a prompt', async () => {
    const patch = `*** Begin Patch\n*** Add File: migrations/0050_x.sql\n+SELECT 1;\n*** End Patch\n`;
    const codex = await runHook(script, ['codex', 'edit'], {
      home,
      env: env(),
      stdin: JSON.stringify({
        session_id: 'cx',
        turn_id: 't',
        cwd: repo,
        hook_event_name: 'PostToolUse',
        tool_name: 'apply_patch',
        tool_input: { command: patch },
      }),
    });
    assert.ok(context(codex, 'PostToolUse').includes(MARK.migrations));
    const kiro = await runHook(script, ['kiro-cli', 'prompt'], {
      home,
      env: env(),
      stdin: JSON.stringify({ hook_event_name: 'userPromptSubmit', cwd: repo, prompt: 'Add VAT to invoices' }),
    });
    assert.equal(kiro.code, 0);
    assert.match(kiro.stdout, /^Cairn, your organization's knowledge service/);
    assert.ok(kiro.stdout.includes(MARK.always) && kiro.stdout.includes(MARK.project), kiro.stdout);
  });

  it("Gemini CLI (0.61's BeforeAgent and AfterTool input): additionalContext named for its events; the write_file rule once; the prompt captured", async () => {
    const base = {
      session_id: 'gem-1',
      transcript_path: join(home, 'chat.json'),
      cwd: repo,
      timestamp: new Date().toISOString(),
    };
    const atPrompt = await runHook(script, ['gemini-cli', 'prompt'], {
      home,
      env: env(),
      stdin: JSON.stringify({ ...base, hook_event_name: 'BeforeAgent', prompt: 'Add VAT to gemini invoices' }),
    });
    const text = context(atPrompt, 'BeforeAgent');
    assert.ok(text.includes(MARK.always) && text.includes(MARK.project) && !text.includes(MARK.other), text);
    const written = (file: string) =>
      JSON.stringify({
        ...base,
        hook_event_name: 'AfterTool',
        tool_name: 'write_file',
        tool_input: { file_path: file, content: 'SELECT 1;' },
        tool_response: { llmContent: 'ok', returnDisplay: 'ok' },
      });
    const edit = context(
      await runHook(script, ['gemini-cli', 'edit'], {
        home,
        env: env(),
        stdin: written(join(repo, 'migrations', '0044_gemini.sql')),
      }),
      'AfterTool',
    );
    assert.ok(edit.includes(MARK.migrations) && !edit.includes(MARK.always), edit);
    assertSilent(
      await runHook(script, ['gemini-cli', 'edit'], {
        home,
        env: env(),
        stdin: written(join(repo, 'migrations', '0045_gemini.sql')),
      }),
    );
    const captured = await capturedPrompts();
    const spooled = existsSync(paths.spool) ? readFileSync(paths.spool, 'utf8') : '';
    assert.ok(
      captured.includes('Add VAT to gemini invoices') || spooled.includes('Add VAT to gemini invoices'),
      `captured: ${captured.join(' | ')}`,
    );
  });

  it('outside a git repository the folder name is the project', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'cairn-guidance-plain-')), 'ledger-service');
    const text = context(
      await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: env(),
        stdin: prompt('Post a refund', 'sess-plain', folder),
      }),
      'UserPromptSubmit',
    );
    assert.ok(text.includes(MARK.other) && !text.includes(MARK.project), text);
  });

  it('a later prompt with some rules new gets only those, in the same line format, and is told the others still apply', async () => {
    const ledger = join(mkdtempSync(join(tmpdir(), 'cairn-guidance-plain-')), 'ledger-service');
    const first = context(
      await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: env(),
        stdin: prompt('Post a refund', 'sess-mixed', ledger),
      }),
      'UserPromptSubmit',
    );
    assert.ok(first.includes(MARK.always) && first.includes(MARK.other), first);
    const later = context(
      await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: env(),
        stdin: prompt('Add VAT to invoices', 'sess-mixed'),
      }),
      'UserPromptSubmit',
    );
    assert.ok(later.includes(MARK.project), later);
    assert.ok(!later.includes(MARK.always), 'a rule given earlier in the session came again');
    assert.match(later, /New for this prompt \(1 rule given earlier in this session still applies\)/);
    assert.ok(later.includes('- Invoices are immutable [project: billing-service]: '), later);
  });

  it('asks after the turn is captured, with the prompt redacted in a POST body; logs neither the prompt nor the key', async () => {
    const recorder = await startStubCaptureServer();
    try {
      const run = await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: { CAIRN_URL: recorder.url, CAIRN_API_KEY: recorder.apiKey },
        stdin: prompt(`deploy with ${plantedSecretsText}`),
      });
      assertSilent(run);
      // Capture first: guidance is asked for only once the turn is in, so it never slows capture down.
      assert.deepEqual(
        recorder.requests.map((r) => r.url),
        ['/api/v1/capture', '/mcp'],
      );
      const call = recorder.requests[1]!;
      assert.equal(call.method, 'POST');
      assert.match(call.body, /"name":"get_guidance"/);
      for (const { kind, secret } of PLANTED_SECRETS)
        assert.ok(!call.body.includes(secret), `${kind} was sent to get_guidance`);
      const log = readFileSync(paths.log, 'utf8');
      assert.match(log, /claude-code prompt guidance HTTP 404/);
      assert.ok(!log.includes('deploy with') && !log.includes(recorder.apiKey), log);
    } finally {
      await recorder.close();
    }
  });

  it('a Cairn that never answers: exits 0 within about 2 s, prints nothing, and the prompt is spooled', async (t) => {
    const held = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      held.add(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
      const run = await runHook(script, ['claude-code', 'prompt'], {
        home,
        env: { CAIRN_URL: url, CAIRN_API_KEY: tenant.member.key },
        stdin: prompt('silent server'),
      });
      t.diagnostic(`against a server that never answers: ${run.ms} ms`);
      assertSilent(run);
      // The hook gives up at 1.4 s and is gone by 1.8 s after it started; Node's own start on a loaded machine comes on top.
      assert.ok(run.ms < 3_000, `took ${run.ms} ms`);
      assert.equal(readFileSync(paths.spool, 'utf8').trim().split('\n').length, 1);
      // Capture had the time first; guidance was left none and did not ask.
      assert.match(readFileSync(paths.log, 'utf8'), /claude-code prompt spooled 1 turn: timed out/);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

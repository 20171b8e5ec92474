// Issue 37, "Delivered without being asked": the real `claude -p` with the cairn plugin (--plugin-dir),
// in a git checkout whose remote names the project, against a stand-in model that records every
// request and answers the prompt with a Write under migrations/. The guidance the plugin's hooks get
// from a real Cairn reaches the model: the organization's "always" rule and the project's rule with
// the prompt, the migrations rule after the write, another project's rule never; the prompt is captured.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { createTenant, type TestTenant } from '../../../server/src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../../server/src/testing/test-cairn.js';
import { checkout, MARK, seedRules } from '../guidance-rules.fixture.js';
import { CLAUDE, type FakeModel, killTree, live, REPO, runClaude, startFakeModel, word } from './claude-run.fixture.js';

runFileOnEachBackend();

const hasGit = spawnSync('git', ['--version']).status === 0;
const skip = !existsSync(CLAUDE)
  ? 'the claude CLI is not installed (npm test installs it into test-clients/)'
  : !hasGit
    ? 'git is not on PATH'
    : false;
/** A prompt holding this word makes the stand-in model write a migration before it answers. */
const WRITE_MIGRATION = 'pleasewritethemigration';

describe('claude -p with the cairn plugin: guidance delivered by its hooks', { skip }, () => {
  let cairn: TestCairn;
  let tenant: TestTenant;
  let model: FakeModel;
  let tmp: string;
  let repo: string;
  let migration: string;

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'cairn-claude-guidance-'));
    repo = checkout(join(tmp, 'home', 'work', 'checkout'));
    migration = join(repo, 'migrations', '0042_add_vat.sql');
    cairn = await startTestCairn();
    tenant = await createTenant(cairn.cairn);
    await seedRules(cairn, tenant);
    model = await startFakeModel(join(repo, 'unused.txt'), (messages) => {
      if (!messages.includes(WRITE_MIGRATION) || messages.includes('"tool_result"')) return undefined;
      return {
        type: 'tool_use',
        id: `toolu_${randomBytes(8).toString('hex')}`,
        name: 'Write',
        input: { file_path: migration, content: 'ALTER TABLE invoices ADD COLUMN vat_cents bigint;\n' },
      };
    });
  });

  after(async () => {
    for (const child of live) killTree(child);
    await Promise.all([model?.close(), cairn?.close()]);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('the first model request holds the always and project rules; the one after the write holds the migrations rule; the prompt is captured', async () => {
    const home = join(tmp, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      TMPDIR: tmp,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: `sk-ant-test-${randomBytes(12).toString('hex')}`,
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      CAIRN_URL: cairn.baseUrl,
      CAIRN_API_KEY: tenant.member.key,
    };
    const marker = word('mark');
    const prompt = `Add VAT to invoices (${marker}); ${WRITE_MIGRATION}.`;
    const run = await runClaude(
      ['-p', prompt, '--plugin-dir', join(REPO, 'plugins', 'cairn'), '--permission-mode', 'acceptEdits'],
      env,
      repo,
    );
    const captureLog = existsSync(join(home, '.cairn', 'capture.log'))
      ? readFileSync(join(home, '.cairn', 'capture.log'), 'utf8')
      : '(no capture.log)';
    const explain = `exit ${run.code} after ${run.ms} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}\n--- capture.log\n${captureLog}\n--- model requests\n${model.requests.map((r) => `${r.path} ${r.body.length} bytes`).join('\n')}`;
    console.log(`# claude -p with guidance hooks: ${run.ms} ms`);
    assert.equal(run.code, 0, explain);
    assert.equal(
      existsSync(migration) && readFileSync(migration, 'utf8'),
      'ALTER TABLE invoices ADD COLUMN vat_cents bigint;\n',
      `the Write tool did not run\n${explain}`,
    );

    const turn = model.requests.filter((r) => r.path === '/v1/messages' && r.messages.includes(marker));
    const afterWrite = turn.findIndex((r) => r.messages.includes('"tool_result"'));
    assert.ok(
      turn.length >= 2 && afterWrite > 0,
      `the model was asked with the prompt, then with the tool's result\n${explain}`,
    );
    const first = turn[0]!.body;
    assert.ok(first.includes(MARK.always), `the "always" rule is not in the first request\n${explain}`);
    assert.ok(first.includes(MARK.project), `the project's rule is not in the first request\n${explain}`);
    assert.ok(!first.includes(MARK.migrations), 'the migrations rule came before any migration was written');
    assert.ok(
      turn[afterWrite]!.body.includes(MARK.migrations),
      `the migrations rule is not in the request after the write\n${explain}`,
    );
    // Given once: the request after the write repeats the first prompt's context, not a second copy of it.
    assert.equal(
      turn[afterWrite]!.body.split(MARK.always).length - 1,
      first.split(MARK.always).length - 1,
      'the always rule was delivered again after the write',
    );
    for (const r of model.requests) assert.ok(!r.body.includes(MARK.other), "another project's rule reached the model");

    const pack = (await cairn.cairn.store.findDatapacks([{ scope: 'personal', ownerId: tenant.member.id }])).find(
      (d) => d.name === 'Conversations',
    );
    const captured = pack
      ? (await cairn.cairn.store.listEntries(pack.id, { limit: 100, offset: 0 })).map((e) => e.content)
      : [];
    const spooled = existsSync(join(home, '.cairn', 'capture-spool.jsonl'))
      ? readFileSync(join(home, '.cairn', 'capture-spool.jsonl'), 'utf8')
      : '';
    assert.ok(
      captured.some((c) => c.includes(marker)) || spooled.includes(marker),
      `the prompt was not captured: ${captured.join(' | ')}\n${explain}`,
    );
  });
});

// The plugin marketplace at the repository root, as a git install sees it: committed files only.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runFileOnEachBackend } from '../../server/src/testing/backends.js';
import { type CaptureCairn, startCaptureCairn } from '../../server/src/testing/capture-cairn.js';
import { clientBin } from '../../server/src/testing/client-bins.js';
import { bundleCapture } from '../scripts/bundle.mjs';

runFileOnEachBackend();

const repo = new URL('../../../', import.meta.url).pathname;
const plugin = join(repo, 'plugins/cairn');
const hookScript = join(plugin, 'hooks/cairn-capture.js');
const claude = clientBin('claude');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const frontmatter = (file: string) =>
  Object.fromEntries(
    (/^---\n([\s\S]*?)\n---\n/.exec(readFileSync(file, 'utf8'))?.[1] ?? '')
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]),
  );

describe('the cairn plugin marketplace', () => {
  it('ships the capture script exactly as a fresh build makes it (run `npm run build -w @cairn/capture` if not)', async () => {
    assert.equal(readFileSync(hookScript, 'utf8'), await bundleCapture());
    assert.ok(statSync(hookScript).mode & 0o100, 'the hook script is executable');
  });

  it("lists the cairn plugin at ./plugins/cairn with the plugin's own version", () => {
    const marketplace = readJson(join(repo, '.claude-plugin/marketplace.json'));
    const manifest = readJson(join(plugin, '.claude-plugin/plugin.json'));
    assert.equal(marketplace.name, 'cairn');
    assert.deepEqual(
      marketplace.plugins.map((p: { name: string; source: string }) => [p.name, p.source]),
      [['cairn', './plugins/cairn']],
    );
    assert.equal(manifest.name, 'cairn');
    assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
    assert.equal(marketplace.plugins[0].version, manifest.version);
  });

  it('runs the committed capture script on UserPromptSubmit, PostToolUse of file writes and Stop from ${CLAUDE_PLUGIN_ROOT}', () => {
    const { hooks } = readJson(join(plugin, 'hooks/hooks.json'));
    assert.deepEqual(Object.keys(hooks).sort(), ['PostToolUse', 'Stop', 'UserPromptSubmit']);
    assert.equal(hooks.PostToolUse[0].matcher, 'Write|Edit|MultiEdit');
    for (const [event, arg] of [
      ['UserPromptSubmit', 'prompt'],
      ['PostToolUse', 'edit'],
      ['Stop', 'stop'],
    ] as const) {
      const [hook] = hooks[event][0].hooks;
      assert.equal(hook.type, 'command');
      assert.equal(hook.command, `node "\${CLAUDE_PLUGIN_ROOT}/hooks/cairn-capture.js" claude-code ${arg}`);
    }
  });

  it('has skills with a name matching their folder and a description, and Kiro steering that is always included', () => {
    const skills = readdirSync(join(plugin, 'skills'));
    assert.deepEqual(skills.sort(), ['consult-cairn', 'save-to-cairn']);
    for (const skill of skills) {
      const meta = frontmatter(join(plugin, 'skills', skill, 'SKILL.md'));
      assert.equal(meta.name, skill);
      assert.ok((meta.description ?? '').length > 50, `${skill} needs a description an agent can match`);
    }
    assert.deepEqual(frontmatter(join(plugin, 'steering/cairn.md')), { inclusion: 'always' });
  });

  for (const [what, dir] of [
    ['marketplace', repo],
    ['plugin', plugin],
  ] as const) {
    it(`passes \`claude plugin validate\` (${what})`, async () => {
      const env = { ...process.env, CLAUDE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'cairn-claude-config-')) };
      // execFile rejects on a non-zero exit, which is how validate reports errors.
      const { stdout } = await promisify(execFile)(claude, ['plugin', 'validate', dir], { env, timeout: 60_000 });
      assert.match(stdout, /✔ Validation passed/);
    });
  }
});

describe('the hook command as Claude Code runs it', () => {
  let cairn: CaptureCairn;
  before(async () => {
    cairn = await startCaptureCairn();
  });
  after(() => cairn.close());

  it('captures through the committed file', async () => {
    const { hooks } = readJson(join(plugin, 'hooks/hooks.json'));
    const home = mkdtempSync(join(tmpdir(), 'cairn-capture-plugin-'));
    const child = execFile('/bin/sh', ['-c', hooks.UserPromptSubmit[0].hooks[0].command], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        CLAUDE_PLUGIN_ROOT: plugin,
        CAIRN_URL: cairn.url,
        CAIRN_API_KEY: cairn.apiKey,
      },
    });
    child.stdin!.end(
      JSON.stringify({
        session_id: 's',
        cwd: '/src/app',
        prompt: 'from the plugin',
        hook_event_name: 'UserPromptSubmit',
      }),
    );
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    assert.deepEqual(
      (await cairn.turns()).map((t) => t.text),
      ['from the plugin'],
    );
    assert.equal(existsSync(join(home, '.cairn/capture-spool.jsonl')), false);
  });
});

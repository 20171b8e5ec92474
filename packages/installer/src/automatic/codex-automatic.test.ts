import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { modeOf, readJson, snapshot, writeFile } from '../testing/automatic-fixtures.js';
import { type TempMachine, tempMachine } from '../testing/temp-machine.js';
import { PLUGIN_FILES } from './plugin-files.generated.js';

const BASE = 'https://cairn.example.com';
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';

async function inHome(fn: (m: TempMachine, codex: string) => Promise<void>) {
  const m = tempMachine();
  const codex = join(m.home, 'codex-home');
  (m.env as Record<string, string>).CODEX_HOME = codex;
  try {
    await fn(m, codex);
  } finally {
    m.cleanup();
  }
}
const foreign = {
  hooks: {
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'other-tool log' }] }],
    PreToolUse: [{ matcher: 'shell', hooks: [{ type: 'command', command: 'guard' }] }],
  },
};

test('codex without --auto stays on-demand: no hooks, no skills, no capture config', () =>
  inHome(async (m, codex) => {
    equal(await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
    ok(!existsSync(join(codex, 'hooks.json')));
    ok(!existsSync(join(m.home, '.cairn', 'capture.json')));
    ok(!existsSync(join(m.home, '.cairn', 'bin')));
    ok(!existsSync(join(codex, 'skills')));
  }));

test('codex --auto: hooks beside the existing ones, skills, capture config 0600; a re-run (even without --auto) changes no byte', () =>
  inHome(async (m, codex) => {
    writeFile(join(codex, 'hooks.json'), `${JSON.stringify(foreign, null, 2)}\n`);
    equal(
      await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes', '--auto'),
      0,
      m.errors.join('\n'),
    );
    const script = join(m.home, '.cairn', 'bin', 'cairn-capture.js');
    const group = (event: string) => ({
      hooks: [{ type: 'command', command: `node "${script}" codex ${event}`, timeout: 10 }],
    });
    deepStrictEqual(readJson(join(codex, 'hooks.json')), {
      hooks: {
        UserPromptSubmit: [...foreign.hooks.UserPromptSubmit, group('prompt')],
        PreToolUse: foreign.hooks.PreToolUse,
        // Codex edits files with apply_patch; the hook reads the patch's file headers.
        PostToolUse: [{ matcher: 'apply_patch|Edit|Write', ...group('edit') }],
        Stop: [group('stop')],
      },
    });
    equal(
      readFileSync(join(codex, 'skills', 'save-to-cairn', 'SKILL.md'), 'utf8'),
      PLUGIN_FILES['skills/save-to-cairn/SKILL.md'],
    );
    deepStrictEqual(readJson(join(m.home, '.cairn', 'capture.json')), { url: BASE, apiKey: KEY });
    equal(modeOf(join(m.home, '.cairn', 'capture.json')), 0o600);
    equal(modeOf(script), 0o755);
    match(m.lines.join('\n'), /trust/);
    const first = snapshot(m.home);
    equal(await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes'), 0);
    deepStrictEqual(snapshot(m.home), first);
  }));

test('codex --uninstall takes out only its own hook groups and files; a hooks.json it created goes entirely', () =>
  inHome(async (m, codex) => {
    const original = `${JSON.stringify(foreign, null, 2)}\n`;
    writeFile(join(codex, 'hooks.json'), original);
    equal(
      await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes', '--auto'),
      0,
      m.errors.join('\n'),
    );
    equal(await m.install('--client', 'codex', '--uninstall'), 0, m.errors.join('\n'));
    deepStrictEqual(readJson(join(codex, 'hooks.json')), foreign);
    ok(!existsSync(join(codex, 'skills', 'consult-cairn')));
    ok(!existsSync(join(m.home, '.cairn', 'capture.json')));

    const fresh = tempMachine();
    try {
      equal(
        await fresh.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes', '--auto'),
        0,
        fresh.errors.join('\n'),
      );
      ok(existsSync(join(fresh.home, '.codex', 'hooks.json')));
      equal(await fresh.install('--client', 'codex', '--uninstall'), 0);
      ok(
        !existsSync(join(fresh.home, '.codex', 'hooks.json')),
        'created by the installer, so removed when only empty containers remain',
      );
    } finally {
      fresh.cleanup();
    }
  }));

test('shared capture files stay while another client uses them', () =>
  inHome(async (m) => {
    equal(
      await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--yes', '--auto'),
      0,
      m.errors.join('\n'),
    );
    equal(await m.install('--client', 'kiro', '--url', BASE, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
    // What the guidance hooks wrote: the rules each session was given.
    const given = join(m.home, '.cairn', 'guidance-given.json');
    writeFile(given, '{"sessions":{}}');
    equal(await m.install('--client', 'codex', '--uninstall'), 0);
    ok(existsSync(join(m.home, '.cairn', 'capture.json')));
    ok(existsSync(given), 'kept while kiro still runs the hooks');
    match(m.lines.join('\n'), /Kept .*capture\.json \(still used by kiro\)/);
    equal(await m.install('--client', 'kiro', '--uninstall'), 0);
    ok(!existsSync(join(m.home, '.cairn', 'capture.json')));
    ok(!existsSync(given), 'gone with the last client');
  }));

test('automatic flags: --auto where it does not exist, with --oauth, or --marketplace off claude-code are refused (exit 2)', () =>
  inHome(async (m) => {
    equal(await m.install('--client', 'cursor', '--url', BASE, '--api-key', KEY, '--auto'), 2);
    match(m.errors.at(-1)!, /not available for Cursor: only for kiro, claude-code, codex, gemini-cli/);
    equal(await m.install('--client', 'codex', '--url', BASE, '--oauth', '--auto'), 2);
    equal(await m.install('--client', 'codex', '--url', BASE, '--api-key', KEY, '--marketplace', 'x/y'), 2);
  }));

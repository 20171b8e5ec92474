import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { modeOf, readJson, snapshot, writeFile } from '../testing/automatic-fixtures.js';
import { type TempMachine, tempMachine } from '../testing/temp-machine.js';
import { PLUGIN_FILES } from './plugin-files.generated.js';

const BASE = 'https://cairn.example.com';
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';

async function inHome(fn: (m: TempMachine, gemini: string) => Promise<void>) {
  const m = tempMachine();
  const geminiHome = join(m.home, 'gemini-home');
  (m.env as Record<string, string>).GEMINI_CLI_HOME = geminiHome;
  try {
    await fn(m, join(geminiHome, '.gemini'));
  } finally {
    m.cleanup();
  }
}
const foreign = {
  general: { vimMode: true },
  hooksConfig: { disabled: ['noisy'] },
  hooks: {
    BeforeAgent: [{ hooks: [{ name: 'other', type: 'command', command: 'other-tool log' }] }],
    BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: 'guard' }] }],
  },
};

test('gemini-cli without --auto stays on-demand: no hooks, no skills, no capture config', () =>
  inHome(async (m, gemini) => {
    equal(await m.install('--client', 'gemini-cli', '--url', BASE, '--api-key', KEY, '--yes'), 0, m.errors.join('\n'));
    ok(!('hooks' in readJson(join(gemini, 'settings.json'))));
    ok(!existsSync(join(m.home, '.cairn', 'capture.json')));
    ok(!existsSync(join(gemini, 'skills')));
  }));

test('gemini-cli --auto: hook groups beside the existing ones (timeouts in ms), skills, capture config 0600; a re-run changes no byte', () =>
  inHome(async (m, gemini) => {
    writeFile(join(gemini, 'settings.json'), `${JSON.stringify(foreign, null, 2)}\n`);
    equal(
      await m.install('--client', 'gemini-cli', '--url', BASE, '--api-key', KEY, '--yes', '--auto'),
      0,
      m.errors.join('\n'),
    );
    const script = join(m.home, '.cairn', 'bin', 'cairn-capture.js');
    const hook = (event: string) => ({
      name: `cairn-${event}`,
      type: 'command',
      command: `node "${script}" gemini-cli ${event}`,
      timeout: 10000,
    });
    const settings = readJson(join(gemini, 'settings.json')) as typeof foreign & {
      mcpServers: Record<string, unknown>;
    };
    ok(settings.mcpServers.cairn, 'the MCP entry is there too');
    deepStrictEqual(settings.general, foreign.general);
    deepStrictEqual(settings.hooksConfig, foreign.hooksConfig);
    deepStrictEqual(settings.hooks, {
      BeforeAgent: [...foreign.hooks.BeforeAgent, { hooks: [hook('prompt')] }],
      BeforeTool: foreign.hooks.BeforeTool,
      AfterTool: [{ matcher: 'write_file|replace', hooks: [hook('edit')] }],
      AfterAgent: [{ hooks: [hook('stop')] }],
    });
    equal(
      readFileSync(join(gemini, 'skills', 'save-to-cairn', 'SKILL.md'), 'utf8'),
      PLUGIN_FILES['skills/save-to-cairn/SKILL.md'],
    );
    deepStrictEqual(readJson(join(m.home, '.cairn', 'capture.json')), { url: BASE, apiKey: KEY });
    equal(modeOf(join(m.home, '.cairn', 'capture.json')), 0o600);
    equal(modeOf(script), 0o755);
    match(m.lines.join('\n'), /runs hooks only in folders it trusts/);
    const first = snapshot(m.home);
    equal(await m.install('--client', 'gemini-cli', '--url', BASE, '--api-key', KEY, '--yes'), 0);
    deepStrictEqual(snapshot(m.home), first);
  }));

test('gemini-cli --uninstall takes out only its own hook groups, skills and capture files; the user’s hooks and settings stay as they were', () =>
  inHome(async (m, gemini) => {
    writeFile(join(gemini, 'settings.json'), `${JSON.stringify(foreign, null, 2)}\n`);
    equal(
      await m.install('--client', 'gemini-cli', '--url', BASE, '--api-key', KEY, '--yes', '--auto'),
      0,
      m.errors.join('\n'),
    );
    equal(await m.install('--client', 'gemini-cli', '--uninstall'), 0, m.errors.join('\n'));
    const settings = readJson(join(gemini, 'settings.json')) as Record<string, unknown>;
    deepStrictEqual(settings.hooks, foreign.hooks);
    deepStrictEqual(settings.hooksConfig, foreign.hooksConfig);
    ok(!existsSync(join(gemini, 'skills', 'consult-cairn')));
    ok(!existsSync(join(m.home, '.cairn', 'capture.json')));
    ok(!existsSync(join(m.home, '.cairn', 'bin', 'cairn-capture.js')));
  }));

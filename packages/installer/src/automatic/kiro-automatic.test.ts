import { deepStrictEqual, equal, match, ok } from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { modeOf, readJson, snapshot, writeFile } from '../testing/automatic-fixtures.js';
import { type TempMachine, tempMachine } from '../testing/temp-machine.js';
import { PLUGIN_FILES } from './plugin-files.generated.js';

const BASE = 'https://cairn.example.com';
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';
const install = (m: TempMachine, ...extra: string[]) =>
  m.install('--client', 'kiro-cli', '--url', BASE, '--api-key', KEY, '--yes', ...extra);

async function inHome(fn: (m: TempMachine, kiro: string) => Promise<void>, kiroHome?: string) {
  const m = tempMachine({ env: { KIRO_HOME: '' } });
  const kiro = kiroHome === undefined ? join(m.home, '.kiro') : join(m.home, kiroHome);
  if (kiroHome !== undefined) (m.env as Record<string, string>).KIRO_HOME = kiro;
  try {
    await fn(m, kiro);
  } finally {
    m.cleanup();
  }
}

const reviewer = {
  name: 'reviewer',
  tools: ['read'],
  hooks: { agentSpawn: [{ command: 'git status' }], userPromptSubmit: [{ command: 'echo mine' }] },
};

test('kiro: automatic by default — MCP entry, capture config, script, steering, skills, both hook formats; key files 0600', () =>
  inHome(async (m, kiro) => {
    writeFile(join(kiro, 'agents', 'reviewer.json'), `${JSON.stringify(reviewer, null, 2)}\n`);
    writeFile(join(kiro, 'agents', 'broken.json'), '{ "name": ');
    equal(await install(m), 0, m.errors.join('\n'));
    const script = join(m.home, '.cairn', 'bin', 'cairn-capture.js');
    const command = (client: string, event: string) => `node "${script}" ${client} ${event}`;

    equal(modeOf(join(m.home, '.cairn')), 0o700);
    deepStrictEqual(readJson(join(m.home, '.cairn', 'capture.json')), { url: BASE, apiKey: KEY });
    equal(modeOf(join(m.home, '.cairn', 'capture.json')), 0o600);
    equal(readFileSync(script, 'utf8'), PLUGIN_FILES['hooks/cairn-capture.js']);
    equal(modeOf(script), 0o755);
    equal(readFileSync(join(kiro, 'steering', 'cairn.md'), 'utf8'), PLUGIN_FILES['steering/cairn.md']);
    match(readFileSync(join(kiro, 'steering', 'cairn.md'), 'utf8'), /^---\ninclusion: always\n---/);
    deepStrictEqual(readdirSync(join(kiro, 'skills')).sort(), ['consult-cairn', 'save-to-cairn']);
    equal(
      readFileSync(join(kiro, 'skills', 'consult-cairn', 'SKILL.md'), 'utf8'),
      PLUGIN_FILES['skills/consult-cairn/SKILL.md'],
    );

    const ide = readJson(join(kiro, 'hooks', 'cairn-capture-prompt.kiro.hook'));
    deepStrictEqual(
      [ide.enabled, ide.version, ide.when, ide.then],
      [true, '1', { type: 'promptSubmit' }, { type: 'runCommand', command: command('kiro-ide', 'prompt') }],
    );
    ok(typeof ide.name === 'string' && typeof ide.description === 'string');
    const agent = readJson(join(kiro, 'agents', 'cairn.json'));
    deepStrictEqual(agent.hooks, {
      userPromptSubmit: [{ command: command('kiro-cli', 'prompt') }],
      stop: [{ command: command('kiro-cli', 'stop') }],
    });
    equal(agent.includeMcpJson, true);

    deepStrictEqual(readJson(join(kiro, 'agents', 'reviewer.json')), {
      ...reviewer,
      hooks: {
        ...reviewer.hooks,
        userPromptSubmit: [{ command: 'echo mine' }, { command: command('kiro-cli', 'prompt') }],
        stop: [{ command: command('kiro-cli', 'stop') }],
      },
    });
    equal(readFileSync(join(kiro, 'agents', 'broken.json'), 'utf8'), '{ "name": ');
    match(m.lines.join('\n'), /Left alone: .*broken\.json: does not parse/);
    match(m.lines.join('\n'), /kiro-cli chat --agent cairn/);

    for (const [path, text] of Object.entries(snapshot(m.home)))
      if (text.includes(KEY)) equal(text.slice(0, 3), '600', `${path} holds the key`);
    ok(!m.lines.join('\n').includes(KEY), 'the key is never printed');
  }));

test('kiro: a second run changes no byte; a new URL updates capture.json in place', () =>
  inHome(async (m, kiro) => {
    writeFile(join(kiro, 'agents', 'reviewer.json'), `${JSON.stringify(reviewer, null, 2)}\n`);
    equal(await install(m), 0, m.errors.join('\n'));
    const first = snapshot(m.home);
    m.lines.length = 0;
    equal(await install(m), 0);
    deepStrictEqual(snapshot(m.home), first);
    ok(
      m.lines.some((l) => l.startsWith('Automatic mode is already up to date')),
      m.lines.join('\n'),
    );
    equal(await m.install('--client', 'kiro', '--url', 'https://other.example.com', '--api-key', KEY, '--yes'), 0);
    deepStrictEqual(readJson(join(m.home, '.cairn', 'capture.json')), {
      url: 'https://other.example.com',
      apiKey: KEY,
    });
    equal(
      readJson(join(kiro, 'agents', 'reviewer.json')).hooks.userPromptSubmit.length,
      2,
      'no duplicate hook entries',
    );
    ok(
      !readdirSync(join(m.home, '.cairn')).some((f) => f.includes('backup')),
      'its own file is replaced without a backup',
    );
  }));

test('kiro --uninstall removes only what the manifest lists; foreign hooks and a file the user edited stay', () =>
  inHome(async (m, kiro) => {
    const original = `${JSON.stringify(reviewer, null, 2)}\n`;
    writeFile(join(kiro, 'agents', 'reviewer.json'), original);
    writeFile(join(kiro, 'steering', 'team.md'), '---\ninclusion: always\n---\nOurs.\n');
    equal(await install(m), 0, m.errors.join('\n'));
    writeFile(join(kiro, 'skills', 'save-to-cairn', 'SKILL.md'), 'my own edit\n');
    equal(await m.install('--client', 'kiro', '--uninstall'), 0, m.errors.join('\n'));
    const out = m.lines.join('\n');
    deepStrictEqual(readJson(join(kiro, 'agents', 'reviewer.json')), reviewer);
    ok(
      !existsSync(join(kiro, 'settings')),
      'the settings file and folder the installer created are gone, not left as {"mcpServers": {}}',
    );
    for (const gone of [
      'steering/cairn.md',
      'hooks/cairn-capture-prompt.kiro.hook',
      'agents/cairn.json',
      'skills/consult-cairn',
    ])
      ok(!existsSync(join(kiro, gone)), gone);
    ok(existsSync(join(kiro, 'steering', 'team.md')));
    equal(readFileSync(join(kiro, 'skills', 'save-to-cairn', 'SKILL.md'), 'utf8'), 'my own edit\n');
    match(out, /Kept .*save-to-cairn\/SKILL\.md \(changed since the installer wrote it\)/);
    for (const gone of ['capture.json', 'bin', 'installed.json']) ok(!existsSync(join(m.home, '.cairn', gone)), gone);
    m.lines.length = 0;
    equal(await m.install('--client', 'kiro', '--uninstall'), 0);
    match(m.lines.join('\n'), /nothing to remove/);
  }));

test('kiro with $KIRO_HOME: everything under it, nothing in ~/.kiro', () =>
  inHome(async (m, kiro) => {
    equal(await install(m), 0, m.errors.join('\n'));
    ok(existsSync(join(kiro, 'steering', 'cairn.md')));
    ok(existsSync(join(kiro, 'hooks', 'cairn-capture-prompt.kiro.hook')));
    match(readFileSync(join(kiro, 'agents', 'cairn.json'), 'utf8'), new RegExp(`skill://${kiro}/skills/`));
    ok(!existsSync(join(m.home, '.kiro')));
  }, 'kh'));

test('kiro: hooks added to an agent without any come out whole, leaving no empty "hooks" behind', () =>
  inHome(async (m, kiro) => {
    const plain = { name: 'plain', tools: ['*'] };
    writeFile(join(kiro, 'agents', 'plain.json'), `${JSON.stringify(plain)}\n`);
    equal(await install(m), 0, m.errors.join('\n'));
    deepStrictEqual(Object.keys(readJson(join(kiro, 'agents', 'plain.json')).hooks), ['userPromptSubmit', 'stop']);
    equal(await m.install('--client', 'kiro', '--uninstall'), 0);
    deepStrictEqual(readJson(join(kiro, 'agents', 'plain.json')), plain);
  }));

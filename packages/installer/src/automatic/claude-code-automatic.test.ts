import { deepStrictEqual, equal, match, ok, throws } from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readJson, snapshot, writeFile } from '../testing/automatic-fixtures.js';
import { type TempMachine, tempMachine } from '../testing/temp-machine.js';
import { autoUpdateValue } from './claude-code-plan.js';

const BASE = 'https://cairn.example.com';
const KEY = 'cairn_tkn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA123456';
const GIT = 'https://git.example.com/cairn.git';
const install = (m: TempMachine, ...extra: string[]) =>
  m.install('--client', 'claude-code', '--url', BASE, '--api-key', KEY, '--yes', ...extra);

async function inHome(fn: (m: TempMachine, settings: string) => Promise<void>) {
  const m = tempMachine();
  (m.env as Record<string, string>).CLAUDE_CONFIG_DIR = join(m.home, 'claude-config');
  try {
    await fn(m, join(m.home, 'claude-config', 'settings.json'));
  } finally {
    m.cleanup();
  }
}

test("claude-code --auto without the CLI: declares the git marketplace and enables cairn@cairn in settings.json, others' keys kept; re-run is byte-identical", () =>
  inHome(async (m, settings) => {
    writeFile(settings, `${JSON.stringify({ theme: 'dark', enabledPlugins: { 'other@market': true } }, null, 2)}\n`);
    equal(await install(m, '--auto', '--marketplace', GIT), 0, m.errors.join('\n'));
    deepStrictEqual(readJson(settings), {
      theme: 'dark',
      enabledPlugins: { 'other@market': true, 'cairn@cairn': true },
      extraKnownMarketplaces: { cairn: { source: { source: 'git', url: GIT } } },
    });
    deepStrictEqual(readJson(join(m.home, '.cairn', 'capture.json')), { url: BASE, apiKey: KEY });
    ok(!existsSync(join(m.home, '.cairn', 'bin')), 'the plugin carries its own copy of the capture script');
    match(m.lines.join('\n'), /next time it starts/);
    const first = snapshot(m.home);
    equal(await install(m), 0, m.errors.join('\n'));
    deepStrictEqual(snapshot(m.home), first, 'the marketplace is remembered; nothing changes');
    deepStrictEqual(
      Object.keys(readJson(join(m.home, 'claude-config', '.claude.json')).mcpServers),
      ['cairn'],
      'one MCP entry, not a second one',
    );

    equal(await m.install('--client', 'claude-code', '--uninstall'), 0, m.errors.join('\n'));
    deepStrictEqual(readJson(settings), { theme: 'dark', enabledPlugins: { 'other@market': true } });
    ok(!existsSync(join(m.home, '.cairn', 'capture.json')));
  }));

test("claude-code --auto with no marketplace given: the installer's own copy of the plugin becomes a folder marketplace; uninstall removes the folder", () =>
  inHome(async (m, settings) => {
    equal(await install(m, '--auto'), 0, m.errors.join('\n'));
    const dir = join(m.home, '.cairn', 'claude-marketplace');
    deepStrictEqual(readJson(settings).extraKnownMarketplaces.cairn, { source: { source: 'directory', path: dir } });
    const marketplace = readJson(join(dir, '.claude-plugin', 'marketplace.json'));
    equal(marketplace.name, 'cairn');
    const pluginDir = join(dir, marketplace.plugins[0].source);
    equal(readJson(join(pluginDir, '.claude-plugin', 'plugin.json')).name, 'cairn');
    ok(readJson(join(pluginDir, 'hooks', 'hooks.json')).hooks.Stop, 'the capture hooks are in the plugin');
    ok(
      existsSync(join(pluginDir, 'hooks', 'cairn-capture.js')) &&
        existsSync(join(pluginDir, 'skills', 'consult-cairn', 'SKILL.md')),
    );
    const first = snapshot(m.home);
    equal(await install(m), 0, m.errors.join('\n'));
    deepStrictEqual(snapshot(m.home), first, 'a re-run keeps the folder and changes nothing');
    equal(await m.install('--client', 'claude-code', '--uninstall'), 0, m.errors.join('\n'));
    ok(!existsSync(dir), 'the marketplace folder it wrote is gone');
    ok(!existsSync(settings), 'the settings file it created held only its own entries');
  }));

test('--auto-update adds autoUpdate beside an existing source, which survives; uninstall takes back only autoUpdate', () =>
  inHome(async (m, settings) => {
    const declared = {
      extraKnownMarketplaces: { cairn: { source: { source: 'git', url: 'https://mirror.example.com/cairn.git' } } },
      model: 'opus',
    };
    writeFile(settings, `${JSON.stringify(declared, null, 2)}\n`);
    equal(await install(m, '--auto-update'), 0, m.errors.join('\n'));
    const after = readJson(settings);
    deepStrictEqual(after.extraKnownMarketplaces.cairn, {
      source: { source: 'git', url: 'https://mirror.example.com/cairn.git' },
      autoUpdate: true,
    });
    equal(after.model, 'opus');
    equal(await m.install('--client', 'claude-code', '--uninstall'), 0, m.errors.join('\n'));
    deepStrictEqual(readJson(settings), declared);
  }));

test('--auto-update never writes an entry holding only autoUpdate; without --marketplace a source-less entry is refused before anything is written', () =>
  inHome(async (m, settings) => {
    const sourceless = `${JSON.stringify({ extraKnownMarketplaces: { cairn: { autoUpdate: false } } }, null, 2)}\n`;
    writeFile(settings, sourceless);
    equal(await install(m, '--auto-update'), 2);
    match(
      m.errors.join('\n'),
      /has no source, so Claude Code cannot find the marketplace .*Run again with --marketplace <git URL or path> to repair it .*Nothing was written\./,
    );
    equal(readFileSync(settings, 'utf8'), sourceless);
    ok(!existsSync(join(m.home, 'claude-config', '.claude.json')), 'no MCP entry written either');
    throws(() => autoUpdateValue(settings, {}), /no "cairn" entry with a source/);
    deepStrictEqual(
      autoUpdateValue(settings, { extraKnownMarketplaces: { cairn: { source: { source: 'git', url: GIT } } } }),
      {
        path: settings,
        keyPath: ['extraKnownMarketplaces', 'cairn', 'autoUpdate'],
        value: true,
        arrayItem: false,
      },
    );
  }));

test('--auto-update with --marketplace repairs the source-less {"autoUpdate": true} entry, keeping its other keys; uninstall takes back only the source', () =>
  inHome(async (m, settings) => {
    const sourceless = `${JSON.stringify({ model: 'opus', extraKnownMarketplaces: { cairn: { autoUpdate: true, note: 'mine' } } }, null, 2)}\n`;
    writeFile(settings, sourceless);
    equal(await install(m, '--auto', '--marketplace', GIT, '--auto-update'), 0, m.errors.join('\n'));
    deepStrictEqual(readJson(settings).extraKnownMarketplaces.cairn, {
      autoUpdate: true,
      note: 'mine',
      source: { source: 'git', url: GIT },
    });
    equal(readJson(settings).enabledPlugins['cairn@cairn'], true);
    match(
      m.lines.join('\n'),
      /Repaired the "cairn" entry under extraKnownMarketplaces .*it had no source; its other keys are kept/,
    );
    const repaired = readFileSync(settings, 'utf8');
    equal(await install(m), 0, m.errors.join('\n'));
    equal(readFileSync(settings, 'utf8'), repaired, 'a re-run keeps the repair and changes nothing');
    equal(await m.install('--client', 'claude-code', '--uninstall'), 0, m.errors.join('\n'));
    equal(readFileSync(settings, 'utf8'), sourceless, 'only what the installer added is taken back');
  }));

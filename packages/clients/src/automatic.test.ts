import { deepStrictEqual, equal } from 'node:assert/strict';
import { test } from 'node:test';
import {
  AUTOMATIC,
  captureCommand,
  claudeStyleHookGroup,
  kiroCairnAgent,
  kiroIdePromptHook,
  marketplaceSource,
} from './automatic.js';
import { automaticPaths } from './automatic-paths.js';
import { claudePluginArgs } from './commands.js';

const SCRIPT = '/home/u/.cairn/bin/cairn-capture.js';

test('automatic mode: the default for kiro (rule 4), opt-in for claude-code, codex and gemini-cli, absent elsewhere', () => {
  deepStrictEqual(Object.fromEntries(Object.entries(AUTOMATIC).map(([id, info]) => [id, info.mode])), {
    kiro: 'default',
    'claude-code': 'opt-in',
    codex: 'opt-in',
    'gemini-cli': 'opt-in',
  });
});

test('hook shapes, exactly as each client reads them', () => {
  equal(captureCommand(SCRIPT, 'kiro-ide', 'prompt'), 'node "/home/u/.cairn/bin/cairn-capture.js" kiro-ide prompt');
  const ide = kiroIdePromptHook(captureCommand(SCRIPT, 'kiro-ide', 'prompt'));
  deepStrictEqual(
    { ...ide, name: 'n', description: 'd' },
    {
      enabled: true,
      name: 'n',
      description: 'd',
      version: '1',
      when: { type: 'promptSubmit' },
      // biome-ignore lint/suspicious/noThenProperty: Kiro's hook file format names this field "then"
      then: { type: 'runCommand', command: 'node "/home/u/.cairn/bin/cairn-capture.js" kiro-ide prompt' },
    },
  );
  deepStrictEqual(claudeStyleHookGroup('x'), { hooks: [{ type: 'command', command: 'x', timeout: 10 }] });
  deepStrictEqual(claudeStyleHookGroup('x', 'apply_patch'), {
    matcher: 'apply_patch',
    hooks: [{ type: 'command', command: 'x', timeout: 10 }],
  });
  const agent = kiroCairnAgent('/home/u/.kiro', 'p', 's');
  deepStrictEqual(agent.hooks, { userPromptSubmit: [{ command: 'p' }], stop: [{ command: 's' }] });
  deepStrictEqual(agent.tools, ['*'], 'an agent without tools has none');
  deepStrictEqual(agent.resources, [
    'file:///home/u/.kiro/steering/**/*.md',
    'skill:///home/u/.kiro/skills/**/SKILL.md',
  ]);
});

test('marketplace sources: git URLs, GitHub owner/repo, local folders', () => {
  deepStrictEqual(marketplaceSource('https://git.example.com/cairn.git', '/w'), {
    source: 'git',
    url: 'https://git.example.com/cairn.git',
  });
  deepStrictEqual(marketplaceSource('git@github.com:acme/cairn.git', '/w'), {
    source: 'git',
    url: 'git@github.com:acme/cairn.git',
  });
  deepStrictEqual(marketplaceSource('acme/cairn', '/w'), { source: 'github', repo: 'acme/cairn' });
  deepStrictEqual(marketplaceSource('/srv/cairn', '/w'), { source: 'directory', path: '/srv/cairn' });
  deepStrictEqual(marketplaceSource('./cairn', '/w'), { source: 'directory', path: '/w/cairn' });
  deepStrictEqual(claudePluginArgs('install'), ['plugin', 'install', 'cairn@cairn', '--scope', 'user']);
});

test('paths honour KIRO_HOME, CODEX_HOME, CLAUDE_CONFIG_DIR and GEMINI_CLI_HOME', () => {
  const base = automaticPaths({ platform: 'linux', home: '/h', env: {} });
  equal(base.kiroSteering, '/h/.kiro/steering/cairn.md');
  equal(base.kiroIdePromptHook, '/h/.kiro/hooks/cairn-capture-prompt.kiro.hook');
  equal(base.codexHooks, '/h/.codex/hooks.json');
  equal(base.claudeSettings, '/h/.claude/settings.json');
  equal(base.captureConfig, '/h/.cairn/capture.json');
  equal(base.geminiSettings, '/h/.gemini/settings.json');
  const moved = automaticPaths({
    platform: 'linux',
    home: '/h',
    env: { KIRO_HOME: '/k', CODEX_HOME: '/c', CLAUDE_CONFIG_DIR: '/cc', GEMINI_CLI_HOME: '/g' },
  });
  deepStrictEqual(
    [
      moved.kiroAgents,
      moved.codexSkills,
      moved.claudeSettings,
      moved.geminiSettings,
      moved.geminiSkills,
      moved.manifest,
    ],
    [
      '/k/agents',
      '/c/skills',
      '/cc/settings.json',
      '/g/.gemini/settings.json',
      '/g/.gemini/skills',
      '/h/.cairn/installed.json',
    ],
  );
});

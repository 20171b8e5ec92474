import type { ClientId } from './client-ids.js';

/** The plugin marketplace's name (`.claude-plugin/marketplace.json` at the repository root). */
export const MARKETPLACE_NAME = 'cairn';

/** The plugin, qualified as `plugin@marketplace` (the form `claude plugin install|update` requires). */
export const PLUGIN_ID = 'cairn@cairn';

/** The flag that opts a client into automatic mode where it is not the default. */
export const AUTO_FLAG = '--auto';

/** How automatic mode (skills, steering and capture hooks: docs/plugin.md) comes to a client through the installer. */
export interface AutomaticInfo {
  /** `default`: every install of the client is automatic (docs/clients.md, "The installer"); `opt-in`: only with `--auto`. */
  mode: 'default' | 'opt-in';
  /** What automatic mode adds besides the MCP entry, in the user's words. */
  adds: string[];
}

const captureConfig = '~/.cairn/capture.json (URL and key for the capture and guidance hooks, mode 0600)';

/** The clients automatic mode exists for; OAuth and manual set-up stay on-demand only. */
export const AUTOMATIC: Readonly<Partial<Record<ClientId, AutomaticInfo>>> = {
  kiro: {
    mode: 'default',
    adds: [
      'steering ~/.kiro/steering/cairn.md (inclusion: always)',
      'skills in ~/.kiro/skills/',
      'IDE hook ~/.kiro/hooks/cairn-capture-prompt.kiro.hook (promptSubmit: captures the prompt, adds the guidance for it)',
      'CLI hooks (userPromptSubmit: capture and guidance; stop) in ~/.kiro/agents/*.json, and a "cairn" agent',
      captureConfig,
      'the capture script ~/.cairn/bin/cairn-capture.js',
    ],
  },
  'claude-code': {
    mode: 'opt-in',
    adds: [
      `the cairn plugin marketplace and ${PLUGIN_ID} (skills, capture hooks, and hooks that hand the agent get_guidance's rules at each prompt and file edit)`,
      captureConfig,
    ],
  },
  codex: {
    mode: 'opt-in',
    adds: [
      'hooks in $CODEX_HOME/hooks.json: UserPromptSubmit (captures the prompt, adds its guidance), PostToolUse on apply_patch (the rules for the files changed), Stop',
      'skills in $CODEX_HOME/skills/',
      captureConfig,
      'the capture script ~/.cairn/bin/cairn-capture.js',
    ],
  },
  'gemini-cli': {
    mode: 'opt-in',
    adds: [
      'hooks in ~/.gemini/settings.json: BeforeAgent (captures the prompt, adds its guidance), AfterTool on write_file|replace (the rules for the file written), AfterAgent (captures the answer)',
      'skills in ~/.gemini/skills/',
      captureConfig,
      'the capture script ~/.cairn/bin/cairn-capture.js',
    ],
  },
};

/** The client ids the capture script takes as its first argument. */
export type CaptureClientId = 'claude-code' | 'codex' | 'gemini-cli' | 'kiro-cli' | 'kiro-ide';

/** What a hook is run for: the user's prompt (captured, and its guidance printed), the final assistant response (captured), or a file written (its guidance printed). */
export type CaptureEvent = 'prompt' | 'stop' | 'edit';

/** The command a hook runs: `node "<script>" <client> <event>` (the path quoted, as the plugin's own hooks do). */
export function captureCommand(scriptPath: string, client: CaptureClientId, event: CaptureEvent): string {
  return `node "${scriptPath}" ${client} ${event}`;
}

/** One Claude-style hook group (Codex `hooks.json`, as in the plugin's `hooks/hooks.json`); a tool event's group names its tools in `matcher`. */
export function claudeStyleHookGroup(command: string, matcher?: string): Record<string, unknown> {
  return { ...(matcher && { matcher }), hooks: [{ type: 'command', command, timeout: 10 }] };
}

/** A Kiro IDE `.kiro.hook` file that runs the capture script when a prompt is submitted (the prompt arrives in `USER_PROMPT`). */
export function kiroIdePromptHook(command: string): Record<string, unknown> {
  return {
    enabled: true,
    name: 'Cairn capture',
    description: 'Sends the submitted prompt (secrets redacted) to Cairn. Installed by cairn-mcp-installer.',
    version: '1',
    when: { type: 'promptSubmit' },
    // biome-ignore lint/suspicious/noThenProperty: Kiro's hook file format names this field "then"
    then: { type: 'runCommand', command },
  };
}

/** One entry of a Kiro CLI agent's `hooks.userPromptSubmit` / `hooks.stop` arrays. */
export function kiroCliHookBlock(command: string): Record<string, unknown> {
  return { command };
}

/** The `cairn` Kiro CLI agent: every tool, the global MCP servers, the steering and skills as resources, and the capture hooks. */
export function kiroCairnAgent(kiroHome: string, promptCommand: string, stopCommand: string): Record<string, unknown> {
  const home = kiroHome.replace(/\\/g, '/');
  return {
    name: 'cairn',
    description:
      'The default tools plus Cairn: consults and saves to Cairn unasked, and captures prompts for it. Installed by cairn-mcp-installer.',
    tools: ['*'],
    includeMcpJson: true,
    resources: [`file://${home}/steering/**/*.md`, `skill://${home}/skills/**/SKILL.md`],
    hooks: { userPromptSubmit: [kiroCliHookBlock(promptCommand)], stop: [kiroCliHookBlock(stopCommand)] },
  };
}

/** A marketplace source as `extraKnownMarketplaces.<name>.source` in Claude Code's settings holds it. */
export type MarketplaceSource =
  | { source: 'git'; url: string }
  | { source: 'github'; repo: string }
  | { source: 'directory'; path: string };

/** Reads `--marketplace`: a git URL, a GitHub `owner/repo`, or a local folder (absolute, or relative to `cwd`). */
export function marketplaceSource(value: string, cwd: string): MarketplaceSource {
  const text = value.trim();
  if (/^(https?|ssh|git|file):\/\//i.test(text) || /^[\w.-]+@[\w.-]+:/.test(text)) return { source: 'git', url: text };
  if (/^[\w.-]+\/[\w.-]+$/.test(text) && !text.startsWith('.')) return { source: 'github', repo: text };
  const absolute = /^([A-Za-z]:[\\/]|[\\/])/.test(text);
  return { source: 'directory', path: absolute ? text : `${cwd.replace(/[\\/]+$/, '')}/${text.replace(/^\.\//, '')}` };
}

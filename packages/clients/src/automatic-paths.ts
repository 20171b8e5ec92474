import { posix, win32 } from 'node:path';
import type { PathContext } from './config-paths.js';

/** Where automatic mode puts things on a machine: Cairn's own folder, and each client's steering, skills, hooks and settings. */
export interface AutomaticPaths {
  /** `~/.cairn`, mode 0700. */
  cairnDir: string;
  /** `{ "url", "apiKey" }` read by the capture script, mode 0600. */
  captureConfig: string;
  /** The local copy of the capture script that Kiro's and Codex's hooks run. */
  captureScript: string;
  /** What the installer added, so re-runs update it and `--uninstall` removes only that. */
  manifest: string;
  kiroHome: string;
  kiroSteering: string;
  /** Folder of global skills, one `<skill>/SKILL.md` each. */
  kiroSkills: string;
  kiroIdePromptHook: string;
  /** Folder of global Kiro CLI agent configs. */
  kiroAgents: string;
  kiroCairnAgent: string;
  codexHooks: string;
  codexSkills: string;
  /** The plugin marketplace the installer writes from its own copy when none is given (`--marketplace`). */
  claudeMarketplace: string;
  /** Claude Code's user settings (`extraKnownMarketplaces`, `enabledPlugins`). */
  claudeSettings: string;
  /** Gemini CLI's user settings (`hooks`), the file its MCP entry lives in too. */
  geminiSettings: string;
  geminiSkills: string;
}

/** The automatic-mode paths on the given machine (`$KIRO_HOME`, `$CODEX_HOME`, `$CLAUDE_CONFIG_DIR` and `$GEMINI_CLI_HOME` honoured). */
export function automaticPaths(ctx: PathContext): AutomaticPaths {
  const path = ctx.platform === 'win32' ? win32 : posix;
  const set = (name: string) => (ctx.env[name] && ctx.env[name]!.length > 0 ? ctx.env[name] : undefined);
  const cairnDir = path.join(ctx.home, '.cairn');
  const kiroHome = set('KIRO_HOME') ?? path.join(ctx.home, '.kiro');
  const codexHome = set('CODEX_HOME') ?? path.join(ctx.home, '.codex');
  const claudeDir = set('CLAUDE_CONFIG_DIR') ?? path.join(ctx.home, '.claude');
  const geminiDir = path.join(set('GEMINI_CLI_HOME') ?? ctx.home, '.gemini');
  return {
    cairnDir,
    captureConfig: path.join(cairnDir, 'capture.json'),
    captureScript: path.join(cairnDir, 'bin', 'cairn-capture.js'),
    manifest: path.join(cairnDir, 'installed.json'),
    kiroHome,
    kiroSteering: path.join(kiroHome, 'steering', 'cairn.md'),
    kiroSkills: path.join(kiroHome, 'skills'),
    kiroIdePromptHook: path.join(kiroHome, 'hooks', 'cairn-capture-prompt.kiro.hook'),
    kiroAgents: path.join(kiroHome, 'agents'),
    kiroCairnAgent: path.join(kiroHome, 'agents', 'cairn.json'),
    codexHooks: path.join(codexHome, 'hooks.json'),
    codexSkills: path.join(codexHome, 'skills'),
    claudeMarketplace: path.join(cairnDir, 'claude-marketplace'),
    claudeSettings: path.join(claudeDir, 'settings.json'),
    geminiSettings: path.join(geminiDir, 'settings.json'),
    geminiSkills: path.join(geminiDir, 'skills'),
  };
}

import { type AutomaticPaths, type CaptureEvent, captureCommand } from '@cairn/clients';
import { type AutomaticPlan, captureConfigFile, captureScriptFile, skillFiles } from './plan.js';

/** Gemini CLI's file-writing tools (0.61: write_file, replace); a hook's matcher is a regular expression over the tool's name. */
export const GEMINI_EDIT_MATCHER = 'write_file|replace';

/** Gemini's hook events for capture's: before the agent works on a prompt, after a tool, after the final answer. */
const GEMINI_EVENTS: Record<CaptureEvent, string> = { prompt: 'BeforeAgent', edit: 'AfterTool', stop: 'AfterAgent' };

/** Gemini counts a hook's timeout in milliseconds (60 s by default); the script is gone within 2 s anyway. */
const TIMEOUT_MS = 10_000;

/** One hook group of `settings.json`; the name is what `/hooks` shows and `hooksConfig.disabled` takes. */
function geminiHookGroup(script: string, event: CaptureEvent): Record<string, unknown> {
  const hook = {
    name: `cairn-${event}`,
    type: 'command',
    command: captureCommand(script, 'gemini-cli', event),
    timeout: TIMEOUT_MS,
  };
  return { ...(event === 'edit' && { matcher: GEMINI_EDIT_MATCHER }), hooks: [hook] };
}

/**
 * Gemini CLI: BeforeAgent (capture and guidance), AfterTool on file writes (guidance for that file) and
 * AfterAgent (capture) groups added to `~/.gemini/settings.json` beside any others, and the skills in
 * `~/.gemini/skills/`. No steering file: Gemini's global GEMINI.md is the user's own, and the hooks
 * hand over the rules at every prompt.
 */
export function geminiPlan(paths: AutomaticPaths, baseUrl: string, apiKey: string): AutomaticPlan {
  const script = paths.captureScript;
  return {
    files: [captureConfigFile(paths, baseUrl, apiKey), captureScriptFile(paths), ...skillFiles(paths.geminiSkills)],
    values: (['prompt', 'edit', 'stop'] as const).map((event) => ({
      path: paths.geminiSettings,
      keyPath: ['hooks', GEMINI_EVENTS[event]],
      value: geminiHookGroup(script, event),
      arrayItem: true,
    })),
    notes: [
      'Gemini CLI runs hooks only in folders it trusts (as with MCP servers): trust your project folder when asked, or set GEMINI_CLI_TRUST_WORKSPACE=true for scripts.',
    ],
    skipped: [],
  };
}

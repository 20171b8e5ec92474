import { type AutomaticPaths, captureCommand, claudeStyleHookGroup } from '@cairn/clients';
import { type AutomaticPlan, captureConfigFile, captureScriptFile, skillFiles } from './plan.js';

/** Codex's file-writing tool (it edits files through patches); a hook's matcher is a regular expression over the tool's name. */
export const CODEX_EDIT_MATCHER = 'apply_patch|Edit|Write';

/**
 * Codex: UserPromptSubmit (capture and guidance), PostToolUse on file writes (guidance for those
 * files) and Stop groups added to `$CODEX_HOME/hooks.json` beside any others, and the skills in `$CODEX_HOME/skills/`.
 */
export function codexPlan(paths: AutomaticPaths, baseUrl: string, apiKey: string): AutomaticPlan {
  const group = (event: 'prompt' | 'stop' | 'edit') =>
    claudeStyleHookGroup(
      captureCommand(paths.captureScript, 'codex', event),
      event === 'edit' ? CODEX_EDIT_MATCHER : undefined,
    );
  return {
    files: [captureConfigFile(paths, baseUrl, apiKey), captureScriptFile(paths), ...skillFiles(paths.codexSkills)],
    values: [
      { path: paths.codexHooks, keyPath: ['hooks', 'UserPromptSubmit'], value: group('prompt'), arrayItem: true },
      { path: paths.codexHooks, keyPath: ['hooks', 'PostToolUse'], value: group('edit'), arrayItem: true },
      { path: paths.codexHooks, keyPath: ['hooks', 'Stop'], value: group('stop'), arrayItem: true },
    ],
    notes: [
      'Codex asks you to review and trust new hooks before it runs them: accept the three Cairn hooks when it does.',
    ],
    skipped: [],
  };
}

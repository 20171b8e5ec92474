import { type AutomaticPaths, captureCommand, claudeStyleHookGroup } from '@cairn/clients';
import { type AutomaticPlan, captureConfigFile, captureScriptFile, skillFiles } from './plan.js';

/** Codex: UserPromptSubmit and Stop groups added to `$CODEX_HOME/hooks.json` beside any others, and the skills in `$CODEX_HOME/skills/`. */
export function codexPlan(paths: AutomaticPaths, baseUrl: string, apiKey: string): AutomaticPlan {
  const group = (event: 'prompt' | 'stop') => claudeStyleHookGroup(captureCommand(paths.captureScript, 'codex', event));
  return {
    files: [captureConfigFile(paths, baseUrl, apiKey), captureScriptFile(paths), ...skillFiles(paths.codexSkills)],
    values: [
      { path: paths.codexHooks, keyPath: ['hooks', 'UserPromptSubmit'], value: group('prompt'), arrayItem: true },
      { path: paths.codexHooks, keyPath: ['hooks', 'Stop'], value: group('stop'), arrayItem: true },
    ],
    notes: ['Codex asks you to review and trust new hooks before it runs them: accept the two Cairn capture hooks when it does.'],
    skipped: [],
  };
}

import { globList, text } from './front-matter.js';
import { folderBefore, type ParsedRule, prefixed, readRuleFile } from './rule-file.js';

/** Cursor `.cursor/rules/**\/*.mdc`: `alwaysApply`, `globs` (a list or comma-separated), `description` (when the agent picks it). */
export function parseCursor(path: string, raw: string): ParsedRule {
  const { front, rule } = readRuleFile(path, 'cursor', raw, ['alwaysApply', 'globs', 'description']);
  const f = front.fields;
  const files = prefixed(folderBefore(path, '.cursor/rules/'), globList(f.globs));
  const when = text(f.description);
  if (f.alwaysApply === true) rule.applies = { always: true };
  else if (files.length || when) rule.applies = { files, when };
  else rule.notes.push('manual rule (no alwaysApply, globs or description): imported to be found by topic only');
  return rule;
}

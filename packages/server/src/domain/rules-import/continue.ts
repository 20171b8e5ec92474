import { globList, text } from './front-matter.js';
import { folderBefore, type ParsedRule, prefixed, readRuleFile } from './rule-file.js';

/** Continue `.continue/rules/`: `alwaysApply`, `globs`, `description` (`name` is its title). */
export function parseContinue(path: string, raw: string): ParsedRule {
  const { front, rule } = readRuleFile(path, 'continue', raw, ['name', 'alwaysApply', 'globs', 'description']);
  const f = front.fields;
  const name = text(f.name);
  if (name) rule.title = name;
  const files = prefixed(folderBefore(path, '.continue/rules/'), globList(f.globs));
  const when = text(f.description);
  // Continue includes a rule with no globs and no alwaysApply: false in every request.
  if (f.alwaysApply === true || (f.alwaysApply === undefined && files.length === 0 && !when))
    rule.applies = { always: true };
  else if (files.length || when) rule.applies = { files, when };
  else rule.notes.push('alwaysApply: false without globs or description: imported to be found by topic only');
  return rule;
}

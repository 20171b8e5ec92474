import { globList, text } from './front-matter.js';
import { folderBefore, type ParsedRule, prefixed, readRuleFile } from './rule-file.js';

/** Windsurf `.windsurf/rules/` and Devin `.devin/rules/`: `trigger: always_on | glob | model_decision | manual`, `globs`, `description`. */
export function parseWindsurf(path: string, raw: string): ParsedRule {
  const format = path.includes('.devin/rules/') ? 'devin' : 'windsurf';
  const { front, rule } = readRuleFile(path, format, raw, ['trigger', 'globs', 'description']);
  const f = front.fields;
  const trigger = text(f.trigger) ?? 'manual';
  const when = text(f.description);
  const files = prefixed(folderBefore(path, `.${format}/rules/`), globList(f.globs));
  if (trigger === 'always_on') rule.applies = { always: true };
  else if (trigger === 'glob') {
    if (files.length === 0) rule.notes.push('trigger glob without globs: no files to match');
    rule.applies = { files, when };
  } else if (trigger === 'model_decision') rule.applies = { when };
  else {
    rule.notes.push(
      trigger === 'manual'
        ? 'manual rule (trigger: manual): imported to be found by topic only'
        : `trigger "${trigger}" is not always_on, glob, model_decision or manual: imported by topic only`,
    );
    rule.applies = { when };
  }
  return rule;
}

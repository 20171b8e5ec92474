import { globList, text } from './front-matter.js';
import { folderBefore, type ParsedRule, prefixed, readRuleFile } from './rule-file.js';

/** GitHub Copilot `.github/copilot-instructions.md` (always) and `.github/instructions/**\/*.instructions.md` (`applyTo`, `description`). */
export function parseCopilot(path: string, raw: string): ParsedRule {
  if (path.endsWith('copilot-instructions.md')) {
    const { rule } = readRuleFile(path, 'copilot', raw, []);
    rule.applies = { always: true };
    return rule;
  }
  const { front, rule } = readRuleFile(path, 'copilot', raw, ['applyTo', 'description', 'excludeAgent']);
  const globs = globList(front.fields.applyTo);
  const when = text(front.fields.description);
  if (globs.includes('**') || globs.includes('**/*')) rule.applies = { always: true };
  else if (globs.length || when)
    rule.applies = { files: prefixed(folderBefore(path, '.github/instructions/'), globs), when };
  else rule.notes.push('no applyTo: imported to be found by topic only');
  return rule;
}

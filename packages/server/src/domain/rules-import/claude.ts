import { globList } from './front-matter.js';
import { folderBefore, folderGlob, type ParsedRule, prefixed, readRuleFile } from './rule-file.js';

/** Claude Code `CLAUDE.md` (the root one always; a nested one for its folder) and `.claude/rules/**\/*.md` (`paths`). */
export function parseClaude(path: string, raw: string): ParsedRule {
  if (path.endsWith('CLAUDE.md')) {
    const { rule } = readRuleFile(path, 'claude', raw, []);
    const folder = folderGlob(path);
    rule.applies = folder ? { files: [folder] } : { always: true };
    return rule;
  }
  const { front, rule } = readRuleFile(path, 'claude', raw, ['paths', 'description']);
  const files = prefixed(folderBefore(path, '.claude/rules/'), globList(front.fields.paths));
  // Claude Code loads a rule without paths with every session.
  rule.applies = files.length ? { files } : { always: true };
  return rule;
}

import { globList } from './front-matter.js';
import { folderBefore, type ParsedRule, prefixed, readRuleFile } from './rule-file.js';

/** Cline `.clinerules` (one file, or a folder of them): `paths`; without it a rule is always on. */
export function parseCline(path: string, raw: string): ParsedRule {
  const { front, rule } = readRuleFile(path, 'cline', raw, ['paths', 'description']);
  const files = prefixed(folderBefore(path, '.clinerules'), globList(front.fields.paths));
  rule.applies = files.length ? { files } : { always: true };
  return rule;
}

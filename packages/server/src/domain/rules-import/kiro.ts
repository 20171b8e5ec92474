import { globList, text } from './front-matter.js';
import { folderBefore, type ParsedRule, prefixed, readRuleFile } from './rule-file.js';

/** Kiro `.kiro/steering/*.md`: `inclusion: always | fileMatch | manual | auto`, `fileMatchPattern`, `description`. */
export function parseKiro(path: string, raw: string): ParsedRule {
  const { front, rule } = readRuleFile(path, 'kiro', raw, ['inclusion', 'fileMatchPattern', 'description', 'name']);
  const f = front.fields;
  const inclusion = text(f.inclusion) ?? 'always';
  const when = text(f.description);
  if (inclusion === 'always') rule.applies = { always: true };
  else if (inclusion === 'fileMatch') {
    const files = prefixed(folderBefore(path, '.kiro/steering/'), globList(f.fileMatchPattern));
    if (files.length === 0) rule.notes.push('inclusion fileMatch without fileMatchPattern: no files to match');
    rule.applies = { files, when };
  } else if (inclusion === 'auto') {
    if (!when) rule.notes.push('inclusion auto without a description: imported to be found by topic only');
    rule.applies = { when };
  } else if (inclusion === 'manual') {
    rule.notes.push('manual rule (inclusion: manual): imported to be found by topic only');
    rule.applies = { when };
  } else {
    rule.notes.push(`inclusion "${inclusion}" is not always, fileMatch, auto or manual: imported by topic only`);
  }
  return rule;
}

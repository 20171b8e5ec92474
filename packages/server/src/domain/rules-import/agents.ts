import { folderGlob, type ParsedRule, readRuleFile } from './rule-file.js';

/** `AGENTS.md` at any depth: the root one always, a nested one for its folder. */
export function parseAgents(path: string, raw: string): ParsedRule {
  const { rule } = readRuleFile(path, 'agents', raw, []);
  const folder = folderGlob(path);
  rule.applies = folder ? { files: [folder] } : { always: true };
  return rule;
}

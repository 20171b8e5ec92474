import { parseAgents } from './agents.js';
import { parseClaude } from './claude.js';
import { parseCline } from './cline.js';
import { parseContinue } from './continue.js';
import { parseCopilot } from './copilot.js';
import { parseCursor } from './cursor.js';
import { parseKiro } from './kiro.js';
import type { ParsedRule } from './rule-file.js';
import { parseWindsurf } from './windsurf.js';

type Parser = (path: string, raw: string) => ParsedRule;

/** Which parser reads a repository file, or undefined when it is no tool's rule file. */
export function parserFor(path: string): Parser | undefined {
  const p = `/${path}`;
  const name = p.slice(p.lastIndexOf('/') + 1);
  if (/\/\.cursor\/rules\/.+\.mdc$/.test(p)) return parseCursor;
  if (name === 'CLAUDE.md' || /\/\.claude\/rules\/.+\.md$/.test(p)) return parseClaude;
  if (name === 'AGENTS.md') return parseAgents;
  if (/\/\.github\/copilot-instructions\.md$/.test(p) || /\/\.github\/instructions\/.+\.instructions\.md$/.test(p))
    return parseCopilot;
  if (/\/\.kiro\/steering\/[^/]+\.md$/.test(p)) return parseKiro;
  if (/\/\.(windsurf|devin)\/rules\/.+\.md$/.test(p)) return parseWindsurf;
  if (/\/\.continue\/rules\/.+\.md$/.test(p)) return parseContinue;
  if (/\/\.clinerules$/.test(p) || /\/\.clinerules\/.+\.(md|txt)$/.test(p)) return parseCline;
  return undefined;
}

/** Folders a repository walk never enters: what they hold is not the repository's own rules. */
export const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', 'build', 'vendor', '.venv', 'target']);

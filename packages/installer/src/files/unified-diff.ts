import { structuredPatch } from 'diff';
import { redactFileText } from '../cli/safe-output.js';

/**
 * A unified diff (3 lines of context) between two versions of a file, to be shown; empty when they are
 * equal. A secret in any line (a neighbouring entry's token) is redacted; Cairn keys are left for the
 * printer to mask.
 */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const { hunks } = structuredPatch(path, path, before, after, '', '', { context: 3, stripTrailingCr: true });
  const lines = [`--- ${before === '' ? '/dev/null' : path}`, `+++ ${path}`];
  for (const h of hunks) {
    // GNU diff numbers an empty side from the line before it (`-0,0` for a new file).
    lines.push(
      `@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart},${h.oldLines} +${h.newLines === 0 ? h.newStart - 1 : h.newStart},${h.newLines} @@`,
      ...h.lines.map(redactFileText),
    );
  }
  return `${lines.join('\n')}\n`;
}

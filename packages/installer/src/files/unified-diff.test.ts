import { equal } from 'node:assert/strict';
import { test } from 'node:test';
import { unifiedDiff } from './unified-diff.js';

test('a changed line, with three lines of context, in the form patch and git read', () => {
  const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
  const after = 'a\nb\nc\nd\nE\nf\ng\nh\n';
  equal(
    unifiedDiff('/home/u/.cursor/mcp.json', before, after),
    '--- /home/u/.cursor/mcp.json\n+++ /home/u/.cursor/mcp.json\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n',
  );
});

test('a new file diffs from /dev/null, numbered from line 0', () => {
  equal(unifiedDiff('/x.json', '', '{}\n'), '--- /dev/null\n+++ /x.json\n@@ -0,0 +1,1 @@\n+{}\n');
});

test('equal texts give no diff; Windows line endings are not shown as changes', () => {
  equal(unifiedDiff('/x', 'same\n', 'same\n'), '');
  equal(unifiedDiff('/x', 'a\r\nb\r\n', 'a\r\nB\r\n'), '--- /x\n+++ /x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n');
});

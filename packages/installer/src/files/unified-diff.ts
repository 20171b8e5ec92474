/** A unified diff (3 lines of context) between two versions of a file; empty when they are equal. */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops = [...diffMiddle(a.slice(start, endA), b.slice(start, endB))];
  const lines: Array<{ op: ' ' | '-' | '+'; text: string }> = [...a.slice(0, start).map((text) => ({ op: ' ' as const, text })), ...ops, ...a.slice(endA).map((text) => ({ op: ' ' as const, text }))];
  return `${[`--- ${before === '' ? '/dev/null' : path}`, `+++ ${path}`, ...hunks(lines)].join('\n')}\n`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => line.replace(/\r$/, ''));
}

function* diffMiddle(a: string[], b: string[]): Generator<{ op: ' ' | '-' | '+'; text: string }> {
  // LCS table; only the changed middle reaches here, so it stays small.
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      yield { op: ' ', text: a[i++]! };
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) yield { op: '-', text: a[i++]! };
    else yield { op: '+', text: b[j++]! };
  }
}

function hunks(lines: Array<{ op: ' ' | '-' | '+'; text: string }>): string[] {
  const out: string[] = [];
  const context = 3;
  let k = 0;
  let oldLine = 1;
  let newLine = 1;
  while (k < lines.length) {
    if (lines[k]!.op === ' ') {
      k++;
      oldLine++;
      newLine++;
      continue;
    }
    const from = Math.max(0, k - context);
    let to = k;
    let quiet = 0;
    while (to < lines.length && quiet <= context * 2) {
      quiet = lines[to]!.op === ' ' ? quiet + 1 : 0;
      to++;
    }
    to = Math.min(lines.length, to - Math.max(0, quiet - context));
    const chunk = lines.slice(from, to);
    const oldStart = oldLine - (k - from);
    const newStart = newLine - (k - from);
    const oldCount = chunk.filter((l) => l.op !== '+').length;
    const newCount = chunk.filter((l) => l.op !== '-').length;
    out.push(`@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`);
    out.push(...chunk.map((l) => l.op + l.text));
    for (let m = k; m < to; m++) {
      if (lines[m]!.op !== '+') oldLine++;
      if (lines[m]!.op !== '-') newLine++;
    }
    k = to;
  }
  return out;
}

// Reads what scripts/test-outcomes-reporter.mjs wrote during one pass of node's test runner and works
// out what run-tests.mjs prints last: the tests that failed, timed out or were cancelled, by file and
// by name, and the slowest files. Node's own closing totals ("# fail 0", "# cancelled 1") name none of
// them, and the failure itself may be thousands of lines up.
import { relative } from 'node:path';

const KINDS = { testTimeoutFailure: 'timed out', cancelledByParent: 'cancelled', hookFailed: 'hook failed' };

/** The pass's problems, its skips and todos, and each file's duration, from the reporter's records. */
export function summarize(records, root) {
  const rel = (file) => (file ? relative(root, file) || file : '(no file)');
  const starts = new Map();
  const running = new Map();
  const problems = [];
  const durations = [];
  const totals = {};
  let skipped = 0;
  let todo = 0;
  for (const r of records) {
    const whole = r.nesting === 0 && r.name === r.file;
    if (r.type === 'total') totals[r.name] = r.value;
    else if (r.type === 'test:start' && !whole) {
      const stack = starts.get(r.file) ?? [];
      stack.length = r.nesting;
      stack[r.nesting] = r.name;
      starts.set(r.file, stack);
    } else if (r.type === 'test:dequeue' && !whole) {
      const open = running.get(r.file) ?? [];
      open.push(r);
      running.set(r.file, open);
    } else if (r.type === 'test:complete') {
      if (whole) durations.push({ file: rel(r.file), ms: r.duration ?? 0 });
      const open = running.get(r.file) ?? [];
      const k = open.findIndex((o) => o.name === r.name && o.nesting === r.nesting && o.line === r.line);
      if (k >= 0) open.splice(k, 1);
    } else if (r.type === 'test:pass' || r.type === 'test:fail') {
      if (r.skip) skipped += 1;
      if (r.todo) todo += 1;
      if (r.type === 'test:fail' && !r.todo && r.failureType !== 'subtestsFailed') {
        const path = whole ? undefined : [...(starts.get(r.file) ?? []).slice(0, r.nesting), r.name].join(' > ');
        problems.push({
          kind: KINDS[r.failureType] ?? 'failed',
          file: rel(r.file),
          test: path,
          error: r.error,
          whileRunning: whole ? leaves(running.get(r.file) ?? []) : [],
        });
      }
    }
  }
  // A suite whose subtests failed is not listed beside them; one whose subtests left no record is.
  for (const r of records)
    if (r.type === 'test:fail' && r.failureType === 'subtestsFailed' && !problems.some((p) => p.file === rel(r.file)))
      problems.push({ kind: 'failed', file: rel(r.file), test: r.name, error: r.error, whileRunning: [] });
  durations.sort((x, y) => y.ms - x.ms);
  return {
    problems,
    durations,
    totals,
    skipped: Math.max(skipped, totals.skipped ?? 0),
    todo: Math.max(todo, totals.todo ?? 0),
  };
}

/** The innermost tests that began and never ended, as "suite > test": what a file was doing when it was stopped. */
function leaves(open) {
  const stack = [];
  const found = [];
  open.forEach((t, k) => {
    stack.length = t.nesting;
    stack[t.nesting] = t.name;
    const next = open[k + 1];
    if (!next || next.nesting <= t.nesting) found.push(stack.join(' > '));
  });
  return found;
}

/** One line a problem, its kind first, so that the closing lines say plainly what went wrong and where. */
export function problemLines(problems) {
  const width = Math.max(...problems.map((p) => p.kind.length));
  return problems.map((p) => {
    const what = p.test
      ? `"${p.test}"${p.error ? `: ${p.error}` : ''}`
      : `the whole file${p.error ? ` (${p.error})` : ''}${p.whileRunning.length > 0 ? `, while running ${p.whileRunning.map((t) => `"${t}"`).join(', ')}` : ''}`;
    return `  ${p.kind.toUpperCase().padEnd(width)}  ${p.file}  ${what}`;
  });
}

export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

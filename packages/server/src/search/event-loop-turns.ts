/**
 * Turns on the event loop for CPU-bound work: each caller waits for its own loop iteration, so
 * between two rankings the loop polls for I/O and a probe or another tenant's request is answered.
 * (Waiting on setImmediate alone would not do: every callback queued before the check phase runs
 * in that one phase, so ten searches at once would still rank back to back.)
 */
// Module-level on purpose: the event loop is the process's, so every Cairn in it takes turns in one queue.
const waiting: (() => void)[] = [];
let draining = false;

/** Resolves in a loop iteration of its own, after the I/O that was ready has been handled. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  });
}

function drain(): void {
  // The resolved caller's continuation runs as a microtask right after this callback, before the next one.
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(drain);
  else draining = false;
}

import type { EventEmitter } from 'node:events';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * The most V8's new space (its two semi-spaces together) should grow to under load, in MB. V8 lets
 * it double up to 32 MB on a 64-bit Node, nearly all of it resident while requests come in. Its
 * maximum can only be set when the process starts (`node --max-semi-space-size`), but the factor it
 * grows by is read each time it grows, so `cairn serve` holds that factor at 1 once the space has
 * reached this size, and at 2 below it (after an idle collection shrank it). Measured by
 * `npm run bench:memory` (docs/benchmarks.md).
 */
export const YOUNG_GENERATION_MB = 16;

const MB = 1024 * 1024;

/** The factor V8's next growth of a new space of `bytes` should use to stay within `limitMb`. */
export function growthFactor(bytes: number, limitMb: number): 1 | 2 {
  return bytes * 2 <= limitMb * MB ? 2 : 1;
}

/** Whether the operator gave node a young-generation setting of their own. */
export function operatorSizedYoungGeneration(execArgv: readonly string[]): boolean {
  return execArgv.some((flag) =>
    /^--(max|min)[-_]semi[-_]space[-_]size\b|^--semi[-_]space[-_]growth[-_]factor\b/.test(flag),
  );
}

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Sets the factor after every garbage collection and before every request. V8 reports a collection
 * only on a later turn of the event loop, and a busy turn can hold several, so the check before each
 * request narrows the window; a space that still grows twice before a check ends one doubling over
 * the limit until the next idle collection shrinks it (a factor of 2, not one step to the limit, so
 * that an overshoot stays one doubling). Returns a function that stops the checks and restores V8's factor.
 */
export function limitYoungGeneration(
  server: EventEmitter,
  limitMb = YOUNG_GENERATION_MB,
  execArgv: readonly string[] = process.execArgv,
): () => void {
  if (operatorSizedYoungGeneration(execArgv)) return () => {};
  let factor = 0;
  const check = () => {
    const next = growthFactor(newSpaceBytes(), limitMb);
    if (next === factor) return;
    factor = next;
    setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  };
  check();
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  server.on('request', check);
  return () => {
    observer.disconnect();
    server.off('request', check);
    setFlagsFromString('--semi-space-growth-factor=2');
  };
}

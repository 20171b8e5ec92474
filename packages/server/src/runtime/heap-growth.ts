import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow past what survived the last full collection. Its default lets a
 * busy server's old generation reach about four times its live data (Cairn's figures under search
 * load are in docs/benchmarks.md), which is memory taken from the machine for garbage.
 * 30% keeps the heap near what is live at the cost of more frequent full collections; measured by
 * `npm run bench:memory` (docs/benchmarks.md). It is one of the few V8 settings that still takes effect once the
 * process runs, so `cairn serve` needs no wrapper process (Node refuses it in NODE_OPTIONS anyway).
 * An operator who wants V8's own heuristics back runs `node --heap-growing-percent=0 bin/cairn.js serve`.
 */
export const HEAP_GROWING_PERCENT = 30;

/** The V8 flag to set, or undefined when the operator already gave one to node. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  const given = execArgv.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag));
  return given ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

export function limitHeapGrowth(): void {
  const flag = heapGrowthFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}

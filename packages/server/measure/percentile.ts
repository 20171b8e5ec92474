/** The q-th quantile of ascending numbers by nearest rank (the smallest value with at least q of them at or below it); NaN for none. */
export function percentile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : NaN;
}

/** Rounded to one decimal, as the benchmark tables print figures. */
export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

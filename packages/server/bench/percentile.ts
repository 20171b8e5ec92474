/** The q-th quantile of ascending numbers (nearest rank), to 0.1; NaN for none. */
export function percentile(sorted: number[], q: number): number {
  return sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! * 10) / 10 : NaN;
}

import { round1 } from '../measure/percentile.js';

/** Evidence recall of a ranked list, as the LoCoMo paper measures retrieval. */

export const CUTOFFS = [5, 10, 25] as const;
export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

/** One asked question: its evidence dia_ids and the dia_ids search returned, best first. */
export interface Answered {
  category: number;
  evidence: string[];
  ranked: string[];
}

/** Percentages (0..100) at each cutoff. */
export interface RecallFigures {
  questions: number;
  /** Share of a question's evidence turns in the top k, averaged over questions. */
  strict: Record<number, number>;
  /** Share of questions with at least one evidence turn in the top k. */
  hit: Record<number, number>;
}

export function recallFigures(answered: Answered[]): RecallFigures {
  const strict: Record<number, number> = {};
  const hit: Record<number, number> = {};
  for (const k of CUTOFFS) {
    let strictSum = 0;
    let hits = 0;
    for (const a of answered) {
      const top = new Set(a.ranked.slice(0, k));
      const found = a.evidence.filter((e) => top.has(e)).length;
      strictSum += found / a.evidence.length;
      if (found > 0) hits++;
    }
    strict[k] = answered.length ? round1((100 * strictSum) / answered.length) : NaN;
    hit[k] = answered.length ? round1((100 * hits) / answered.length) : NaN;
  }
  return { questions: answered.length, strict, hit };
}

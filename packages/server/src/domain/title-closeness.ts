import { cosine, textVector, words } from '../search/index.js';
import type { Entry } from '../store/types.js';

/**
 * How close a rule's title and tags come to the task's words in Cairn's word vectors: for each
 * task word, its best cosine with a title or tag word, averaged. Rules are named by their subject,
 * so a task word that is a near-synonym of a title word ("payout" and "refund") counts for
 * something where search's ranking of whole texts gives it little.
 */
export function titleCloseness(taskVectors: readonly Float32Array[], entry: Pick<Entry, 'title' | 'tags'>): number {
  if (!taskVectors.length) return 0;
  const titleVectors = wordVectors(`${entry.title} ${entry.tags.join(' ')}`);
  if (!titleVectors.length) return 0;
  let sum = 0;
  for (const q of taskVectors) {
    let best = 0;
    for (const t of titleVectors) best = Math.max(best, cosine(q, t));
    sum += best;
  }
  return sum / taskVectors.length;
}

/** The vector of each word of a text that has one (stop words and unknown words left out). */
export function wordVectors(text: string): Float32Array[] {
  const out: Float32Array[] = [];
  for (const word of new Set(words(text))) {
    const v = textVector([word]);
    if (v) out.push(v);
  }
  return out;
}

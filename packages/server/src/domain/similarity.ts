import { createHash } from 'node:crypto';
import { isStopWord } from '../store/search-terms.js';

/** Entries this similar (see `similarity`) count as the same knowledge saved twice. */
export const NEAR_DUPLICATE_THRESHOLD = 0.8;

/** Hash of the normalised title and content: catches exact re-saves without a search. */
export function contentHash(title: string, content: string): string {
  const normal = `${title}\n${content}`.toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(normal).digest('hex');
}

/**
 * How alike two texts are, 0..1: the mean of the Jaccard indexes of their terms and of their
 * consecutive term pairs. Order counts through the pairs, so "Nate: Bye Joanna!" and "Joanna: Bye
 * Nate!" (the same words, another speaker) are not the same thing said twice.
 */
export function similarity(a: string, b: string): number {
  const [left, right] = [terms(a), terms(b)];
  return (jaccard(new Set(left), new Set(right)) + jaccard(pairs(left), pairs(right))) / 2;
}

/** A text's words in order, without function words. */
function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !isStopWord(w));
}

function pairs(words: string[]): Set<string> {
  return new Set(words.slice(1).map((w, i) => `${words[i]} ${w}`));
}

/** Jaccard index of two sets, 0..1; two empty sets are the same. */
export function jaccard<T>(left: Set<T>, right: Set<T>): number {
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const t of left) if (right.has(t)) shared++;
  return shared / (left.size + right.size - shared);
}

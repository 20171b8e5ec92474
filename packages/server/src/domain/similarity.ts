import { createHash } from 'node:crypto';
import { searchTerms } from '../store/search-terms.js';

/** Entries this similar (Jaccard over their terms) count as the same knowledge saved twice. */
export const NEAR_DUPLICATE_THRESHOLD = 0.8;

/** Hash of the normalised title and content: catches exact re-saves without a search. */
export function contentHash(title: string, content: string): string {
  const normal = `${title}\n${content}`.toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(normal).digest('hex');
}

/** Jaccard similarity of two texts' term sets, 0..1. */
export function similarity(a: string, b: string): number {
  return jaccard(new Set(searchTerms(a, Infinity)), new Set(searchTerms(b, Infinity)));
}

/** Jaccard index of two sets, 0..1; two empty sets are the same. */
export function jaccard<T>(left: Set<T>, right: Set<T>): number {
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const t of left) if (right.has(t)) shared++;
  return shared / (left.size + right.size - shared);
}

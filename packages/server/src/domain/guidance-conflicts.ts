import type { BoundedCache } from '../cache/bounded-cache.js';
import { cosine, textVector, words } from '../search/index.js';
import type { Entry } from '../store/types.js';
import type { Selected } from './guidance-select.js';
import { NEAR_DUPLICATE_THRESHOLD, similarity } from './similarity.js';

/** Two rules on the same subject that say different things; the stronger level (or, within one level, the newer rule) wins. */
export interface GuidanceConflict {
  topic: string;
  prevails: Selected;
  overridden: Selected;
  rule: string;
}

/**
 * Titles this close in the word vectors name the same subject ("Python formatting" and "Formatting
 * Python code"); whole rules this close are about the same thing even under other titles. Unrelated
 * texts' averaged vectors still agree at 0.3 to 0.5 (hybrid-ranking.ts), related ones at 0.6 to 0.8.
 */
const SAME_TITLE = 0.85;
const SAME_RULE = 0.9;

const LEVEL_ORDER = { organization: 0, team: 1, personal: 2 } as const;
const LEVEL_NAME = {
  organization: 'Organization policy',
  team: 'Team standard',
  personal: 'Personal preference',
} as const;

/** Conflicts among the selected rules, across levels and within one; `held`: the rules' vectors kept by id and version (DomainCaches.ruleVectors). */
export function findConflicts(items: readonly Selected[], held: BoundedCache<string, RuleVectors>): GuidanceConflict[] {
  const vectors = items.map((i) => vectorsOf(i.entry, held));
  const conflicts: GuidanceConflict[] = [];
  for (let a = 0; a < items.length; a++) {
    for (let b = a + 1; b < items.length; b++) {
      const [x, y] = [items[a]!, items[b]!];
      const va = vectors[a]!;
      const vb = vectors[b]!;
      const sameTitle = va.title && vb.title ? cosine(va.title, vb.title) >= SAME_TITLE : false;
      // Long rules' averaged vectors agree on style as much as on subject: a rule's whole text counts
      // only beside a word their titles share.
      const sameRule =
        va.whole && vb.whole
          ? cosine(va.whole, vb.whole) >= SAME_RULE && sharedWords(x.entry.title, y.entry.title) !== ''
          : false;
      if (!sameTitle && !sameRule) continue;
      // Saying the same thing twice is no conflict.
      if (similarity(x.entry.content, y.entry.content) >= NEAR_DUPLICATE_THRESHOLD) continue;
      const [prevails, overridden] = stronger(x, y) ? [x, y] : [y, x];
      const where = prevails.datapack.scope === overridden.datapack.scope ? ' (same level: the newer rule)' : '';
      conflicts.push({
        topic: sharedWords(x.entry.title, y.entry.title) || prevails.entry.title,
        prevails,
        overridden,
        rule: `${LEVEL_NAME[prevails.datapack.scope]} "${prevails.entry.title}" takes precedence over ${LEVEL_NAME[overridden.datapack.scope].toLowerCase()} "${overridden.entry.title}"${where}`,
      });
    }
  }
  return conflicts;
}

/** A rule's title and whole-text vectors (DomainCaches.ruleVectors keeps them by id and version). */
export type RuleVectors = { title: Float32Array | undefined; whole: Float32Array | undefined };

function vectorsOf(entry: Entry, held: BoundedCache<string, RuleVectors>): RuleVectors {
  const key = `${entry.id}:${entry.version}`;
  let v = held.get(key);
  if (!v) {
    v = { title: textVector(words(entry.title)), whole: textVector(words(`${entry.title} ${entry.content}`)) };
    held.set(key, v);
  }
  return v;
}

function stronger(x: Selected, y: Selected): boolean {
  const dx = LEVEL_ORDER[x.datapack.scope];
  const dy = LEVEL_ORDER[y.datapack.scope];
  if (dx !== dy) return dx < dy;
  return x.entry.updatedAt >= y.entry.updatedAt;
}

function sharedWords(a: string, b: string): string {
  const right = new Set(words(b));
  return [...new Set(words(a))].filter((w) => right.has(w) && w.length > 2).join(', ');
}

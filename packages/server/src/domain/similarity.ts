import { createHash } from 'node:crypto';
import { isStopWord } from '../search/index.js';

/** Entries this similar (see `similarity`) count as the same knowledge saved twice. */
export const NEAR_DUPLICATE_THRESHOLD = 0.8;

/** Hash of the normalised title and content: catches exact re-saves without a search. */
export function contentHash(title: string, content: string): string {
  const normal = `${title}\n${content}`.toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(normal).digest('hex');
}

/**
 * How alike two texts are, 0..1. A near-duplicate says the same thing, at most with ordinary words
 * added or dropped: the Jaccard index of the two texts' terms, lowered when the terms they share
 * come in another order (so "Nate: Bye Joanna!" and "Joanna: Bye Nate!", the same words said by
 * another speaker, are not the same thing). Two texts that differ in what makes knowledge specific
 * are never near-duplicates: a number or version, a negation or other word that turns a rule
 * around (never, always, not, only, except…), a named thing (a host, path, package, CamelCase or
 * capitalised name), or a word put in another's place ("use pnpm" / "use yarn"). Their score is
 * halved, which keeps it below the threshold.
 */
export function similarity(a: string, b: string): number {
  return similarityTo(a)(b);
}

/** `similarity` of one text to others, its terms found once (a save compares its text with five candidates). */
export function similarityTo(a: string): (b: string) => number {
  const left = terms(a);
  const leftSet = new Set(left.map((t) => t.term));
  return (b) => compared(left, leftSet, terms(b));
}

function compared(left: Term[], leftSet: Set<string>, right: Term[]): number {
  const rightSet = new Set(right.map((t) => t.term));
  const alike = jaccard(leftSet, rightSet);
  if (alike === 0) return 0;
  const shared = (list: Term[], other: Set<string>) => list.filter((t) => other.has(t.term)).map((t) => t.term);
  const order = jaccard(pairs(shared(left, rightSet)), pairs(shared(right, leftSet)));
  const score = (alike * (1 + order)) / 2;
  return changesMeaning(left, rightSet) ||
    changesMeaning(right, leftSet) ||
    (onlyIn(left, rightSet).length > 0 && onlyIn(right, leftSet).length > 0)
    ? score / 2
    : score;
}

interface Term {
  term: string;
  /** A number or version, a polarity word, or a named thing: a difference in it is a different rule. */
  specific: boolean;
}

/** Words that turn a rule around or bound it: never dropped, and a difference in one is a different rule. */
const POLARITY = new Set(
  'not no never always none nothing nobody nowhere neither nor without except unless only avoid must may might cannot disable disabled enable enabled allow allowed deny denied forbid forbidden before after above below over under more less most least fewer minimum maximum min max first last true false off yes required optional'.split(
    ' ',
  ),
);

/** Quantifiers that say the same thing: "every input", "each input" and "all input" are one rule. */
const SAME_QUANTIFIER = new Set(['every', 'each', 'all']);

/** A word without its inflection, so "applying", "applies" and "apply" or "warnings" and "warning" meet. */
function stem(word: string): string {
  const bare = word.endsWith('ss') ? word : word.replace(/(?:ings|ing|es|ed|s)$/, '').replace(/i$/, 'y');
  const base = bare.length >= 3 ? bare : word;
  return base.length > 3 ? base.replace(/e$/, '') : base;
}

/** A word, or a compound of words joined by . / _ : @ + # or - (a host, path, version, package or identifier). */
const TOKEN = /[\p{L}\p{N}]+(?:[._\-/:@+#][\p{L}\p{N}]+)*/gu;

/** A text's terms in order: function words dropped, plain words lightly stemmed, compounds and numbers kept whole. */
function terms(text: string): Term[] {
  const normal = text.replace(/n['’]t\b/gi, ' not').replace(/['’]s\b/gi, '');
  const out: Term[] = [];
  for (const line of normal.split(/\n|[.!?;:](?:\s|$)/)) {
    let first = true;
    for (const [raw] of line.matchAll(TOKEN)) {
      const atStart = first;
      first = false;
      // Hyphenated plain words ("take-home", "full-disk") are their words; other compounds are names.
      const parts = /^[\p{L}]+(?:-[\p{L}]+)+$/u.test(raw) ? raw.split('-') : [raw];
      for (const part of parts) {
        const word = part.toLowerCase();
        const whole = /[._/:@+#-]|\p{N}/u.test(part);
        const named = whole || /.\p{Lu}/u.test(part) || (!atStart && /^\p{Lu}/u.test(part));
        if (POLARITY.has(word)) out.push({ term: word, specific: true });
        else if (named || !(isStopWord(word) || SAME_QUANTIFIER.has(word)))
          out.push({ term: whole ? word : stem(word), specific: named });
      }
    }
  }
  return out;
}

function onlyIn(list: Term[], other: Set<string>): Term[] {
  return list.filter((t) => !other.has(t.term));
}

function changesMeaning(list: Term[], other: Set<string>): boolean {
  return onlyIn(list, other).some((t) => t.specific);
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

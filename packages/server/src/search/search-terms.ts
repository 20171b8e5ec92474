const STOPWORDS = new Set(
  'a about an and any are as at be been being but by can could did do does doing done for from go goes going had has have he her hers him his how i if in into is it its me my of on or our she should so some that the their them then there these they this to up us was we were what when where which who whom why will with would you your'.split(
    ' ',
  ),
);

/** Words too common to say what a text is about. */
export function isStopWord(word: string): boolean {
  return STOPWORDS.has(word);
}

/** At most this many terms reach the full-text index; long prompts add noise, not recall. */
const MAX_TERMS = 24;

/** A word and whether an apostrophe comes right before it (the "t" of "don't", the "s" of "it's"). */
const WORD = /(['\u2019])?([\p{L}\p{N}]+)/gu;

/**
 * Splits free text into distinct lower-case word terms, in order of first use. Only letters and
 * digits survive, so a term can never carry query syntax into FTS5 or tsquery. A number is kept
 * whatever its length ("tool number 2", "version 3"), and so is a single letter ("plan b"), but
 * for the tail of a contraction or a possessive, which says nothing about the topic.
 */
export function searchTerms(text: string, max = MAX_TERMS): string[] {
  const seen = new Set<string>();
  for (const [, apostrophe, word] of text.toLowerCase().matchAll(WORD)) {
    if (STOPWORDS.has(word!) || (word!.length === 1 && apostrophe && !/\p{N}/u.test(word!))) continue;
    seen.add(word!);
    if (seen.size === max) break;
  }
  return [...seen];
}

import type { SearchHit } from '../store/types.js';
import { CAPTURED_KIND, lightStem, words } from './search-ranking.js';

/**
 * What a person (or an agent acting for one) is shown of a ranking: the entries that answer, not
 * every entry that scored something. Ranking scores every entry a little (a captured turn borrows
 * from its session, word vectors of unrelated texts still agree somewhat), which is right for
 * ordering and wrong for a list: those hits pad it. And a captured turn scores what its neighbours
 * lend it on top of its own words, so turns crowd out the rules that say the same.
 */

/**
 * A hit scoring less than this share of the best hit's score is padding, not an answer. Hybrid
 * scores lie closer together than BM25's, where a hit matching one word of a long question scores
 * a fraction of one matching three; chosen on LoCoMo's folds 1-4 as the highest that cost no
 * recall there (docs/search.md#recall).
 */
export const RELATIVE_FLOOR = { hybrid: 0.25, lexical: 0.1 } as const;
/**
 * The hybrid scores share one scale (1: the best lexical match, facet-scores.ts and
 * hybrid-ranking.ts): a hit below this matched no word and only faintly in meaning.
 */
export const HYBRID_FLOOR = 0.15;
/** A captured turn is ordered as if it scored this many times less, unless the query is about a conversation. */
export const TURN_DISCOUNT = 1.5;

/**
 * Light stems of words that say the query is about what was said: speech ("what did we talk
 * about", "she said"), the exchange itself ("our conversation", "that chat") or a time behind us
 * ("yesterday", "an hour ago"). Generic English, chosen before any query was measured; words
 * rules use as often ("ask", "tell", "session") are left out.
 */
const CONVERSATION_STEMS = new Set(
  [
    'talk',
    'said',
    'say',
    'says',
    'told',
    'mention',
    'discuss',
    'discussion',
    'conversation',
    'chat',
    'chatted',
    'spoke',
    'speak',
    'transcript',
    'yesterday',
    'earlier',
    'ago',
  ].map(lightStem),
);

/**
 * Whether a query asks about a conversation: it names captured turns as a kind, names one of their
 * speakers (`namesSpeaker`, known to the ranking), or uses a word of CONVERSATION_STEMS.
 */
export function aboutConversation(text: string, kinds: readonly string[] | undefined, namesSpeaker = false): boolean {
  if (namesSpeaker || kinds?.includes(CAPTURED_KIND)) return true;
  return words(text).some((w) => CONVERSATION_STEMS.has(lightStem(w)));
}

/**
 * The hits worth showing, best first. With `hybrid`, those scoring below HYBRID_FLOOR are left
 * out. Unless the query is about a conversation (`namesSpeaker`: it names a captured speaker), a
 * captured turn is ordered by its score over TURN_DISCOUNT, so a rule ranks before a turn that
 * scores less than that many times more. Then only the hits within RELATIVE_FLOOR of the best, as
 * ordered, are kept. Each hit's score is the one it is ordered by; ties keep the ranking's order.
 */
export function forReader(
  hits: SearchHit[],
  text: string,
  kinds: readonly string[] | undefined,
  hybrid: boolean,
  namesSpeaker = false,
): SearchHit[] {
  const discount = aboutConversation(text, kinds, namesSpeaker) ? 1 : TURN_DISCOUNT;
  const least = hybrid ? HYBRID_FLOOR : Number.MIN_VALUE;
  const ordered = hits
    .flatMap((h, at) =>
      h.score < least ? [] : [{ at, hit: h.entry.kind === CAPTURED_KIND ? { ...h, score: h.score / discount } : h }],
    )
    .sort((x, y) => y.hit.score - x.hit.score || x.at - y.at)
    .map((x) => x.hit);
  const floor = RELATIVE_FLOOR[hybrid ? 'hybrid' : 'lexical'] * (ordered[0]?.score ?? 0);
  return ordered.filter((h) => h.score >= floor);
}

/** Deepest nesting of arrays and objects Cairn accepts in a JSON body. */
export const MAX_JSON_DEPTH = 64;

/** What one pass over a body found. */
export interface JsonScan {
  /** The body starts like JSON (`{` or `[` after whitespace). */
  looksLikeJson: boolean;
  /** It nests arrays/objects deeper than the limit. */
  tooDeep: boolean;
  /** A string holds `\u0000` (or a raw NUL byte). */
  hasNul: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * One linear pass over the raw bytes, without parsing: recursive parsers and validators downstream
 * overflow the stack on deep nesting ("Maximum call stack size exceeded"), so depth is checked
 * before anything parses. UTF-8 continuation bytes are all >= 0x80, so scanning bytes is exact.
 */
export function scanJson(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): JsonScan {
  let start = 0;
  while (start < bytes.length && WHITESPACE.has(bytes[start]!)) start++;
  const result: JsonScan = { looksLikeJson: OPENERS.has(bytes[start]!), tooDeep: false, hasNul: false };
  if (!result.looksLikeJson) return result;
  let depth = 0;
  let inString = false;
  for (let i = start; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0) result.hasNul = true;
    if (inString) {
      if (b === BACKSLASH) {
        if (isNulEscape(bytes, i + 1)) result.hasNul = true;
        i++;
      } else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (OPENERS.has(b)) {
      if (++depth > maxDepth) {
        result.tooDeep = true;
        return result;
      }
    } else if (CLOSERS.has(b)) depth--;
  }
  return result;
}

/** `u0000` at i (the part of `\u0000` after the backslash). */
function isNulEscape(bytes: Uint8Array, i: number): boolean {
  return (
    bytes[i] === 0x75 &&
    bytes[i + 1] === 0x30 &&
    bytes[i + 2] === 0x30 &&
    bytes[i + 3] === 0x30 &&
    bytes[i + 4] === 0x30
  );
}

/**
 * Globs of the files a rule is about, matched without backtracking: a glob is cut into path
 * segments, each segment into single-character tokens and stars, and a path is matched segment by
 * segment with a table (globstars) and within a segment by the two-pointer wildcard scan. The work
 * of one glob against one path is at most the product of their lengths, whatever the glob, and each
 * step is counted against the caller's budget. (A regular expression compiled from a glob, as
 * picomatch's, can backtrack for ever on a glob such as "*a*a*a*a*a*a*a*a*a*a*b".)
 *
 * Syntax: `*` (any characters but `/`), `**` as a whole segment (any number of segments), `?`,
 * classes `[abc]`, `[a-z]`, `[!a]` / `[^a]`, braces `{a,b}` (nested) and ranges `{1..9}`, `\` to
 * escape. A glob without a slash matches file names in any folder, as in .gitignore; a leading `/`
 * or `./` is dropped and a trailing `/` means everything below that folder.
 */

/** One character position of a segment: a literal, `?` (any), or a class. */
type Token =
  | { type: 'char'; c: string }
  | { type: 'any' }
  | { type: 'class'; negated: boolean; ranges: [string, string][] }
  | { type: 'star' };
type Segment = { type: 'globstar' } | { type: 'tokens'; tokens: Token[] };

/** A parsed glob: its alternatives (braces expanded), each a list of segments. */
export interface CompiledGlob {
  source: string;
  /** Matches file names only (the glob has no slash). */
  baseName: boolean;
  alternatives: Segment[][];
  /** Upper bound of the steps one match against a path of one segment and one character costs. */
  weight: number;
}

/** How many patterns a glob's braces may expand to. */
export const MAX_GLOB_ALTERNATIVES = 64;

export class GlobError extends Error {}

/** A counter of matching steps shared by the matches of one request; past its limit nothing more is matched. */
export class MatchBudget {
  used = 0;
  constructor(readonly limit: number) {}
  get spent(): boolean {
    return this.used > this.limit;
  }
}

/** Parses a glob, or throws a GlobError that says what is wrong. */
export function compileGlob(source: string): CompiledGlob {
  if (source.includes('\0')) throw new GlobError('it holds a NUL character');
  if (/^!/.test(source))
    throw new GlobError('a negated glob (starting with "!") is not supported: list the globs that apply');
  if (/[@!+*?]\(/.test(source.replace(/\\./g, '')))
    throw new GlobError('extended globs such as @(a|b) are not supported: use braces, as in {a,b}');
  if (source.includes('[:'))
    throw new GlobError('character classes such as [[:alpha:]] are not supported: use ranges, as in [a-z]');
  const alternatives = expandBraces(source).map((alt) => parseSegments(normalise(alt)));
  const weight = alternatives.reduce(
    (n, segs) => n + segs.reduce((m, s) => m + (s.type === 'globstar' ? 1 : s.tokens.length + 1), 0),
    0,
  );
  return { source, baseName: !source.includes('/'), alternatives, weight };
}

function normalise(glob: string): string {
  let g = glob.replace(/^(\.\/)+/, '').replace(/^\/+/, '');
  if (g.endsWith('/')) g += '**';
  return g;
}

/** Whether the glob matches the path (given as its segments), or any tail of it at a folder boundary. */
export function globMatchesPath(glob: CompiledGlob, segments: readonly string[], budget: MatchBudget): boolean {
  if (segments.length === 0) return false;
  const target = glob.baseName ? segments.slice(-1) : segments;
  for (const alt of glob.alternatives) {
    if (budget.spent) return false;
    if (matchAnyTail(alt, target, budget)) return true;
  }
  return false;
}

/**
 * ok[i][j]: glob segments i.. match path segments j.. . Filled from the end, a segment pair is only
 * compared when what follows it matches, so each pair is compared at most once.
 */
function matchAnyTail(glob: readonly Segment[], path: readonly string[], budget: MatchBudget): boolean {
  const G = glob.length;
  const P = path.length;
  // A match ends at the path's end: a last segment of tokens must match the file name, checked first.
  const last = glob[G - 1]!;
  if (last.type === 'tokens' && !segmentMatches(last.tokens, path[P - 1]!, budget)) return false;
  const width = P + 1;
  const ok = new Uint8Array((G + 1) * width);
  ok[G * width + P] = 1;
  for (let i = G - 1; i >= 0; i--) {
    const seg = glob[i]!;
    for (let j = P; j >= 0; j--) {
      budget.used++;
      let m = false;
      if (seg.type === 'globstar') m = ok[(i + 1) * width + j] === 1 || (j < P && ok[i * width + j + 1] === 1);
      else m = j < P && ok[(i + 1) * width + j + 1] === 1 && segmentMatches(seg.tokens, path[j]!, budget);
      ok[i * width + j] = m ? 1 : 0;
    }
    if (budget.spent) return false;
  }
  for (let j = 0; j < P; j++) if (ok[j] === 1) return true;
  return false;
}

/** The two-pointer wildcard scan: on a mismatch, only the last star takes one more character. */
function segmentMatches(tokens: readonly Token[], text: string, budget: MatchBudget): boolean {
  let t = 0;
  let s = 0;
  let star = -1;
  let resume = 0;
  while (s < text.length) {
    budget.used++;
    const tok = tokens[t];
    if (tok && tok.type !== 'star' && oneMatches(tok, text[s]!)) {
      t++;
      s++;
    } else if (tok?.type === 'star') {
      star = t++;
      resume = s;
    } else if (star >= 0) {
      t = star + 1;
      s = ++resume;
    } else return false;
  }
  while (tokens[t]?.type === 'star') t++;
  return t === tokens.length;
}

function oneMatches(tok: Exclude<Token, { type: 'star' }>, c: string): boolean {
  if (tok.type === 'char') return tok.c === c;
  if (tok.type === 'any') return true;
  const inside = tok.ranges.some(([lo, hi]) => c >= lo && c <= hi);
  return inside !== tok.negated;
}

function parseSegments(glob: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of splitUnescaped(glob)) {
    if (part === '') continue;
    if (part === '**') {
      if (segments.at(-1)?.type !== 'globstar') segments.push({ type: 'globstar' });
      continue;
    }
    segments.push({ type: 'tokens', tokens: parseTokens(part) });
  }
  if (segments.length === 0) throw new GlobError('it names no file');
  return segments;
}

/** Splits at slashes that are not escaped or inside a class. */
function splitUnescaped(glob: string): string[] {
  const parts: string[] = [];
  let current = '';
  let inClass = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) {
      current += c + glob[++i];
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass && !/\[[!^]?$/.test(current)) inClass = false;
    if (c === '/' && !inClass) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  if (inClass) throw new GlobError('a "[" is not closed: write "\\[" for the character itself');
  parts.push(current);
  return parts;
}

function parseTokens(segment: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '\\') {
      if (i + 1 >= segment.length) throw new GlobError('it ends with a lone "\\"');
      tokens.push({ type: 'char', c: segment[++i]! });
    } else if (c === '*') {
      // Stars side by side are one star (within a segment, "**" is a star too).
      if (tokens.at(-1)?.type !== 'star') tokens.push({ type: 'star' });
    } else if (c === '?') tokens.push({ type: 'any' });
    else if (c === '[') {
      const { token, end } = parseClass(segment, i);
      tokens.push(token);
      i = end;
    } else tokens.push({ type: 'char', c });
  }
  return tokens;
}

function parseClass(segment: string, start: number): { token: Token; end: number } {
  let i = start + 1;
  const negated = segment[i] === '!' || segment[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  let first = true;
  for (; i < segment.length; i++) {
    let c = segment[i]!;
    if (c === ']' && !first) return { token: { type: 'class', negated, ranges }, end: i };
    first = false;
    if (c === '\\' && i + 1 < segment.length) c = segment[++i]!;
    if (segment[i + 1] === '-' && i + 2 < segment.length && segment[i + 2] !== ']') {
      let hi = segment[i + 2]!;
      i += 2;
      if (hi === '\\' && i + 1 < segment.length) hi = segment[++i]!;
      if (hi < c) throw new GlobError(`the range "${c}-${hi}" runs backwards`);
      ranges.push([c, hi]);
    } else ranges.push([c, c]);
  }
  throw new GlobError('a "[" is not closed: write "\\[" for the character itself');
}

/** Expands braces, innermost choices included; a glob that would give too many patterns is refused. */
function expandBraces(glob: string): string[] {
  const open = findBrace(glob);
  if (!open) return [glob];
  const { start, end, choices } = open;
  const out: string[] = [];
  for (const choice of choices) {
    for (const rest of expandBraces(glob.slice(0, start) + choice + glob.slice(end + 1))) {
      out.push(rest);
      if (out.length > MAX_GLOB_ALTERNATIVES)
        throw new GlobError(
          `its braces expand to more than ${MAX_GLOB_ALTERNATIVES} patterns: split it into several globs`,
        );
    }
  }
  return out;
}

/** The first top-level brace group that offers choices (commas or a range), or undefined. */
function findBrace(glob: string): { start: number; end: number; choices: string[] } | undefined {
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '}') throw new GlobError('a "}" has no "{": write "\\}" for the character itself');
    if (c !== '{') continue;
    let depth = 0;
    const cuts: number[] = [];
    for (let j = i; j < glob.length; j++) {
      const d = glob[j]!;
      if (d === '\\') {
        j++;
        continue;
      }
      if (d === '{') depth++;
      else if (d === '}' && --depth === 0) {
        const body = glob.slice(i + 1, j);
        const choices = cuts.length ? splitAt(glob, i + 1, cuts, j) : rangeChoices(body);
        if (!choices) {
          i = j;
          break;
        }
        return { start: i, end: j, choices };
      } else if (d === ',' && depth === 1) cuts.push(j);
    }
    if (depth > 0) throw new GlobError('a "{" is not closed: write "\\{" for the character itself');
  }
  return undefined;
}

function splitAt(glob: string, from: number, cuts: readonly number[], to: number): string[] {
  const bounds = [from - 1, ...cuts, to];
  return bounds.slice(1).map((b, k) => glob.slice(bounds[k]! + 1, b));
}

/** `{1..5}` or `{a..e}` as its values; undefined for a brace that offers no choice (kept as it is). */
function rangeChoices(body: string): string[] | undefined {
  const m = /^(-?\d{1,6})\.\.(-?\d{1,6})$/.exec(body) ?? /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
  if (!m) return undefined;
  const numeric = /\d/.test(m[1]!);
  const lo = numeric ? Number(m[1]) : m[1]!.charCodeAt(0);
  const hi = numeric ? Number(m[2]) : m[2]!.charCodeAt(0);
  const count = Math.abs(hi - lo) + 1;
  if (count > MAX_GLOB_ALTERNATIVES)
    throw new GlobError(
      `the range {${body}} gives more than ${MAX_GLOB_ALTERNATIVES} patterns: split it into several globs`,
    );
  const step = hi >= lo ? 1 : -1;
  return Array.from({ length: count }, (_, k) =>
    numeric ? String(lo + k * step) : String.fromCharCode(lo + k * step),
  );
}

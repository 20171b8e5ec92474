// RE2 (Go) regex syntax → JavaScript, for gitleaks' rules. Pure functions; used by
// vendor-gitleaks-rules.mjs and tested in src/redaction/re2-to-js.test.ts.

/** Thrown for RE2 syntax with no faithful JavaScript equivalent (the rule is then dropped and counted). */
export class Untranslatable extends Error {}

const POSIX = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  digit: '0-9',
  xdigit: '0-9A-Fa-f',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\t\\n\\v\\f\\r ',
  word: '\\w',
};
const isLetter = (c) => /^[A-Za-z]$/.test(c);
const swapCase = (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** A character as it may appear inside a JS character class. */
function classChar(c) {
  if ('\\]^-['.includes(c)) return `\\${c}`;
  const code = c.charCodeAt(0);
  if (code < 0x20 || code > 0x7e)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  return c;
}

/** A literal character outside a class. */
function literal(c) {
  if ('\\.*+?()[]{}|^$/-'.includes(c)) return `\\${c}`;
  return classChar(c);
}

/** Reads one escape at src[i] (a backslash); returns the character it denotes, or a class escape. */
function readEscape(src, i) {
  const n = src[i + 1];
  if (n === undefined) throw new Untranslatable('trailing backslash');
  if ('dDwWsS'.includes(n)) return { cls: `\\${n}`, len: 2 };
  if (n === 'x') {
    if (src[i + 2] === '{') {
      const end = src.indexOf('}', i);
      const code = parseInt(src.slice(i + 3, end), 16);
      if (!(code <= 0xffff)) throw new Untranslatable('\\x{…} beyond the BMP');
      return { ch: String.fromCharCode(code), len: end - i + 1 };
    }
    return { ch: String.fromCharCode(parseInt(src.slice(i + 2, i + 4), 16)), len: 4 };
  }
  const controls = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', a: '\x07' };
  if (n in controls) return { ch: controls[n], len: 2 };
  if (/[A-Za-z0-9]/.test(n)) return { other: n, len: 2 };
  return { ch: n, len: 2 };
}

/** Translates an RE2 character class starting at src[i] ('['). */
function readClass(src, i, ci) {
  let j = i + 1;
  let negated = false;
  if (src[j] === '^') {
    negated = true;
    j++;
  }
  const parts = [];
  const extra = [];
  let first = true;
  const atom = () => {
    if (src[j] === '\\') {
      const e = readEscape(src, j);
      j += e.len;
      if (e.other) throw new Untranslatable(`\\${e.other} in a class`);
      return e;
    }
    return { ch: src[j++] };
  };
  while (true) {
    if (j >= src.length) throw new Untranslatable('unterminated class');
    if (src[j] === ']' && !first) break;
    first = false;
    if (src.startsWith('[:', j)) {
      const end = src.indexOf(':]', j);
      const name = src.slice(j + 2, end);
      if (!(name in POSIX)) throw new Untranslatable(`[:${name}:]`);
      parts.push(POSIX[name]);
      j = end + 2;
      continue;
    }
    const a = atom();
    if (a.cls) {
      parts.push(a.cls);
      continue;
    }
    if (src[j] === '-' && src[j + 1] !== ']') {
      j++;
      const b = atom();
      if (b.cls) throw new Untranslatable('range to a class escape');
      parts.push(`${classChar(a.ch)}-${classChar(b.ch)}`);
      if (ci) {
        // Case-fold the letters the range covers, as RE2's (?i) does.
        for (const [lo, hi, shift] of [
          ['a', 'z', -32],
          ['A', 'Z', 32],
        ]) {
          const from = Math.max(a.ch.charCodeAt(0), lo.charCodeAt(0));
          const to = Math.min(b.ch.charCodeAt(0), hi.charCodeAt(0));
          if (from <= to) extra.push(`${String.fromCharCode(from + shift)}-${String.fromCharCode(to + shift)}`);
        }
      }
      continue;
    }
    parts.push(classChar(a.ch));
    if (ci && isLetter(a.ch)) extra.push(swapCase(a.ch));
  }
  return { out: `[${negated ? '^' : ''}${parts.join('')}${extra.join('')}]`, len: j + 1 - i };
}

/**
 * RE2 → JavaScript. Node 20 has no inline modifier groups, so case-insensitive parts are expanded
 * into [aA] classes, except when the whole pattern is case-insensitive (then the `i` flag does it).
 */
export function translate(re2) {
  const uniform = re2.startsWith('(?i)') && !/\(\?[a-zA-Z-]+[:)]/.test(re2.slice(4));
  const src = uniform ? re2.slice(4) : re2;
  let out = '';
  let ci = false;
  let dotall = false;
  const stack = [];
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    if (c === '\\') {
      const e = readEscape(src, i);
      i += e.len;
      if (e.cls) out += e.cls;
      else if (e.other === 'b' || e.other === 'B') out += `\\${e.other}`;
      else if (e.other === 'z') out += '$';
      else if (e.other === 'A') out += '^';
      else if (e.other) throw new Untranslatable(`\\${e.other}`);
      else if (ci && isLetter(e.ch)) out += `[${e.ch}${swapCase(e.ch)}]`;
      else out += literal(e.ch);
      continue;
    }
    if (c === '[') {
      const k = readClass(src, i, ci);
      out += k.out;
      i += k.len;
      continue;
    }
    if (c === '(') {
      const flags = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(src.slice(i));
      if (flags) {
        const [all, on, off = '', kind] = flags;
        if (/[^is]/.test(on + off)) throw new Untranslatable(`flags (?${on}-${off})`);
        const next = {
          ci: on.includes('i') ? true : off.includes('i') ? false : ci,
          dotall: on.includes('s') ? true : off.includes('s') ? false : dotall,
        };
        if (kind === ':') {
          stack.push({ ci, dotall });
          out += '(?:';
        }
        ({ ci, dotall } = next);
        i += all.length;
        continue;
      }
      if (src.startsWith('(?P<', i)) {
        stack.push({ ci, dotall });
        out += '(?<';
        i += 4;
        continue;
      }
      if (src.startsWith('(?', i)) throw new Untranslatable(`group syntax ${src.slice(i, i + 4)}`);
      stack.push({ ci, dotall });
      out += '(';
      i++;
      continue;
    }
    if (c === ')') {
      const saved = stack.pop();
      if (!saved) throw new Untranslatable('unbalanced )');
      ({ ci, dotall } = saved);
      out += ')';
      i++;
      continue;
    }
    if (c === '.') {
      out += dotall ? '[\\s\\S]' : '[^\\n]';
      i++;
      continue;
    }
    out += ci && isLetter(c) ? `[${c}${swapCase(c)}]` : c;
    i++;
  }
  if (stack.length) throw new Untranslatable('unbalanced (');
  const flags = uniform ? 'i' : '';
  new RegExp(out, `${flags}gd`); // must compile
  return { source: out, flags };
}

const NAME_PREFIX = '[\\w.\\-]{0,50}?';

/**
 * JavaScript backtracks where RE2 runs in linear time, so two shapes are rewritten to keep a hostile
 * 64 KB text from taking seconds:
 * - the leading `[\w.-]{0,50}?` (it only widens gitleaks' reported match to the variable name) is
 *   removed; the runtime widens the match the same way before "match" allowlists see it;
 * - unbounded `.*` (the curl rules) is bounded to 1,000 characters per line.
 */
export function linearize(rule) {
  let source = rule.source;
  let namePrefix = false;
  while (source.startsWith(NAME_PREFIX)) {
    source = source.slice(NAME_PREFIX.length);
    namePrefix = true;
  }
  if (source.startsWith(`(?:${NAME_PREFIX}`)) {
    source = `(?:${source.slice(3 + NAME_PREFIX.length)}`;
    namePrefix = true;
  }
  source = source.replaceAll('[^\\n]*', '[^\\n]{0,1000}');
  new RegExp(source, `${rule.flags}gd`);
  return { ...rule, source, ...(namePrefix && { namePrefix: true }) };
}

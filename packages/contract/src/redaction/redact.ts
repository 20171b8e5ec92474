/**
 * Secret redaction for every write path: the capture script (before anything leaves the machine)
 * and the server's domain layer (captured turns, saved and updated entries). Rules: gitleaks'
 * maintained rule set, vendored (vendor/gitleaks), plus Cairn's own for what it misses. No
 * dependencies and no I/O, so the capture bundle compiles this same module in.
 */
import { CAIRN_RULES } from './cairn-rules.js';
import { shannonEntropy } from './checks.js';
import type { RegexSource, VendoredAllowlist } from './rule-types.js';
import { GITLEAKS_GLOBAL_ALLOWLIST, GITLEAKS_RULES } from './vendor/gitleaks/rules.generated.js';

/** One kind of secret removed, and how many times. */
export interface RedactionFinding {
  rule: string;
  count: number;
}

/** The safe text and what was removed from it (never the secrets themselves). */
export interface Redaction {
  text: string;
  findings: RedactionFinding[];
}

/** What replaces a secret: visible, so the agent and the user know something was removed. */
export const redactionMarker = (rule: string) => `[redacted:${rule}]`;

interface Rule {
  id: string;
  keywords: readonly string[];
  source: RegexSource;
  secretGroup?: number;
  entropy?: number;
  allowlists: readonly VendoredAllowlist[];
  validate?: (secret: string) => boolean;
  namePrefix?: boolean;
  /** The secret must start on the line of its name: an empty `PASSWORD=` never takes the next line's text. */
  sameLine?: boolean;
  /** 0: Cairn's specific rules, 1: gitleaks' specific rules, 2: generic rules. Labels overlaps. */
  rank: number;
}

/** gitleaks' catch-all; it labels a secret only when no product-specific rule did. */
const GITLEAKS_GENERIC = 'generic-api-key';

let rules: Rule[] | undefined;
function allRules(): Rule[] {
  rules ??= [
    ...CAIRN_RULES.map((r) => ({
      id: r.id,
      keywords: r.keywords,
      source: { source: r.pattern.source, flags: r.pattern.flags },
      secretGroup: r.secretGroup,
      allowlists: [],
      validate: r.validate,
      rank: r.generic ? 2 : 0,
    })),
    ...GITLEAKS_RULES.map((r) => ({
      id: r.id,
      keywords: r.keywords,
      source: r,
      secretGroup: r.secretGroup,
      entropy: r.entropy,
      allowlists: [GITLEAKS_GLOBAL_ALLOWLIST, ...(r.allowlists ?? [])],
      namePrefix: r.namePrefix,
      // gitleaks' catch-all lets whitespace, line breaks included, separate a name from its value.
      sameLine: r.id === GITLEAKS_GENERIC,
      rank: r.id === GITLEAKS_GENERIC ? 2 : 1,
    })),
  ];
  return rules;
}

// Compiled on first use only: most texts trigger a handful of the ~240 rules' keywords.
const compiled = new WeakMap<RegexSource, RegExp>();
function regex(source: RegexSource, scan: boolean): RegExp {
  let re = compiled.get(source);
  if (!re) {
    re = new RegExp(source.source, `${source.flags}${scan ? 'gd' : ''}`);
    compiled.set(source, re);
  }
  return re;
}

const MARKER = /^["']?\[redacted:[\w-]+\]["']?$/;

interface Span {
  start: number;
  end: number;
  rule: string;
  rank: number;
}

/** Replaces every secret found with `[redacted:<rule>]`. Idempotent: redacting twice changes nothing more. */
export function redact(input: string): Redaction {
  const lower = input.toLowerCase();
  const spans: Span[] = [];
  for (const rule of allRules()) {
    if (rule.keywords.length > 0 && !rule.keywords.some((k) => lower.includes(k))) continue;
    const re = regex(rule.source, true);
    re.lastIndex = 0;
    for (let m = re.exec(input); m; m = re.exec(input)) {
      if (m[0] === '') {
        re.lastIndex++;
        continue;
      }
      const [start, end] = secretRange(m, rule.secretGroup);
      if (start === end) continue;
      if (rule.sameLine && hasLineBreak(input, m.index, start)) {
        // The next line may hold a NAME=value of its own: look again from just after this name.
        re.lastIndex = m.index + 1;
        continue;
      }
      const secret = input.slice(start, end);
      // A marker left by an earlier pass is not a secret (some vendored rules would take it for one).
      if (MARKER.test(secret)) continue;
      if (rule.entropy && shannonEntropy(secret) <= rule.entropy) continue;
      if (rule.validate && !rule.validate(secret)) continue;
      if (rule.allowlists.length > 0) {
        const matchStart = rule.namePrefix ? widenOverName(input, m.index) : m.index;
        const match = input.slice(matchStart, m.index + m[0].length);
        if (rule.allowlists.some((a) => isAllowed(a, secret, match, lineAround(input, m.index, m.index + m[0].length))))
          continue;
      }
      spans.push({ start, end, rule: rule.id, rank: rule.rank });
    }
  }
  return apply(input, spans);
}

/** Adds up findings by rule, keeping first-seen order. */
export function mergeFindings(findings: readonly RedactionFinding[]): RedactionFinding[] {
  const byRule = new Map<string, number>();
  for (const f of findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + f.count);
  return [...byRule].map(([rule, count]) => ({ rule, count }));
}

/** gitleaks: the secretGroup if set, else the first non-empty group, else the whole match. */
function secretRange(m: RegExpExecArray, group: number | undefined): [number, number] {
  const indices = m.indices!;
  if (group !== undefined) return group === 0 ? indices[0]! : (indices[group] ?? [0, 0]);
  for (let g = 1; g < indices.length; g++) {
    const range = indices[g];
    if (range && range[1] > range[0]) return range;
  }
  return indices[0]!;
}

function isAllowed(a: VendoredAllowlist, secret: string, match: string, line: string): boolean {
  const target = a.target === 'match' ? match : a.target === 'line' ? line : secret;
  const checks: boolean[] = [];
  if (a.regexes.length > 0) checks.push(a.regexes.some((r) => regex(r, false).test(target)));
  if (a.stopwords.length > 0) {
    const lowerSecret = secret.toLowerCase();
    checks.push(a.stopwords.some((w) => lowerSecret.includes(w)));
  }
  return a.all ? checks.length > 0 && checks.every(Boolean) : checks.some(Boolean);
}

/** Where gitleaks' `[\w.-]{0,50}?` would have started the match: back over the variable name. */
function widenOverName(text: string, start: number): number {
  let from = start;
  while (from > 0 && start - from < 50 && /[\w.-]/.test(text[from - 1]!)) from--;
  return from;
}

function hasLineBreak(text: string, from: number, to: number): boolean {
  const at = text.indexOf('\n', from);
  return at !== -1 && at < to;
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to === -1 ? text.length : to);
}

/** Overlapping finds become one redaction, labelled by the most specific rule among them. */
function apply(input: string, spans: Span[]): Redaction {
  if (spans.length === 0) return { text: input, findings: [] };
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.rank - b.rank);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      if (span.rank < last.rank) Object.assign(last, { rule: span.rule, rank: span.rank });
    } else {
      merged.push({ ...span });
    }
  }
  let text = '';
  let at = 0;
  const counts: RedactionFinding[] = [];
  for (const span of merged) {
    text += input.slice(at, span.start) + redactionMarker(span.rule);
    at = span.end;
    counts.push({ rule: span.rule, count: 1 });
  }
  return { text: text + input.slice(at), findings: mergeFindings(counts) };
}

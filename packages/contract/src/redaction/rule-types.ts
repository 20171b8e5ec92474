/** A regular expression as data: JavaScript source and flags (never `g`/`d`; the engine adds those). */
export interface RegexSource {
  source: string;
  flags: string;
}

/** gitleaks' allowlist, reduced to what applies to text: a finding it matches is not a secret. */
export interface VendoredAllowlist {
  /** What the regexes are matched against: the secret, the whole match, or the line holding it. */
  target: 'secret' | 'match' | 'line';
  regexes: readonly RegexSource[];
  /** Lower-case words; a secret containing one is a placeholder, not a secret. */
  stopwords: readonly string[];
  /** true: every listed condition must hold (gitleaks' condition = "AND"); false: any one. */
  all: boolean;
}

/** One gitleaks rule translated to JavaScript. */
export interface VendoredRule extends RegexSource {
  id: string;
  /** Lower-case substrings; the rule runs only if the text contains one of them. */
  keywords: readonly string[];
  /** Capture group holding the secret; without it, the first non-empty group, or the whole match. */
  secretGroup?: number;
  /** Minimum Shannon entropy of the secret; at or below it the match is not a secret. */
  entropy?: number;
  allowlists?: readonly VendoredAllowlist[];
  /** gitleaks' leading `[\w.-]{0,50}?` was removed (linear time); "match" allowlists see the match widened back over it. */
  namePrefix?: boolean;
}

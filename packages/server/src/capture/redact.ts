/**
 * Secret redaction shared by the capture script (before anything leaves the machine) and the
 * server (again, before anything is stored). Plain regular expressions with no dependencies, so
 * the capture bundle can compile this same file in.
 */

/** One kind of secret and how to find it. */
interface SecretPattern {
  kind: string;
  pattern: RegExp;
  /** Keep this capture group (e.g. the variable name), replace the rest. */
  keepGroup?: number;
}

const PATTERNS: SecretPattern[] = [
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g },
  { kind: 'cairn-key', pattern: /\bcairn_(?:tkn|stp)_[A-Za-z0-9_-]{10,}/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { kind: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'stripe-key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'google-api-key', pattern: /\bAIza[A-Za-z0-9_-]{35}\b/g },
  { kind: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  // scheme://user:password@host — keep the scheme and user, drop the password.
  { kind: 'url-password', pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi, keepGroup: 1 },
  { kind: 'aws-secret', pattern: /((?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY)\s*[=:]\s*["']?)[A-Za-z0-9/+=]{40}/g, keepGroup: 1 },
  // password=…, "api_key": "…", token: … — keep the name, drop the value.
  {
    kind: 'assigned-secret',
    pattern: /((?:pass(?:word|wd)?|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)["']?\s*[=:]\s*["']?)(?!\[REDACTED)[^\s"',;]{6,}/gi,
    keepGroup: 1,
  },
  { kind: 'bearer', pattern: /(\bBearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{16,}/g, keepGroup: 1 },
];

/** What redaction did: the safe text and how many secrets it replaced, by kind. */
export interface Redaction {
  text: string;
  count: number;
  kinds: string[];
}

/** Replaces every secret found with `[REDACTED:<kind>]`. Idempotent: redacting twice changes nothing more. */
export function redactSecrets(input: string): Redaction {
  let text = input;
  let count = 0;
  const kinds = new Set<string>();
  for (const { kind, pattern, keepGroup } of PATTERNS) {
    text = text.replace(pattern, (...match: string[]) => {
      count++;
      kinds.add(kind);
      return `${keepGroup ? (match[keepGroup] ?? '') : ''}[REDACTED:${kind}]`;
    });
  }
  return { text, count, kinds: [...kinds] };
}

import { isBasicCredential, isCardNumber, looksLikeAwsSecret } from './checks.js';

/** A rule of Cairn's own, for what gitleaks misses, finds only near a product name, or finds only with entropy. */
export interface CairnRule {
  id: string;
  /** Lower-case substrings; the rule runs only if the text contains one. Empty: always runs (keep the regex cheap). */
  keywords: readonly string[];
  pattern: RegExp;
  /** Capture group holding the secret (the rest, such as `PASSWORD=`, stays readable); 0: the whole match; absent: the first non-empty group, else the whole match. */
  secretGroup?: number;
  /** A further test of the secret, for what a regex cannot say (checksums, randomness). */
  validate?: (secret: string) => boolean;
  /** A generic rule labels a secret only when no specific rule found it. */
  generic?: boolean;
}

/** Names whose value is a secret: NAME=value, "name": "value", name: value. `pass` and `pw` only as a name's last part (DB_PASS, smtp.pass, DB_PW), never inside a word (bypass, compass). */
const SECRET_NAME =
  /(?:secret|token|password|passwd|pwd|passphrase|[_.-]pass|[_.-]pw|pgpass|sshpass|rediscli[_.-]?auth|secret[_.-]?id|api[_.-]?key|apikey|access[_.-]?key|secret[_.-]?key|private[_.-]?key|account[_.-]?key|shared[_.-]?access[_.-]?key|master[_.-]?key|signing[_.-]?key|encryption[_.-]?key|auth[_.-]?key|credentials?|client[_.-]?secret)/
    .source;

/** Values that name or point at a secret instead of being one. */
const PLACEHOLDER =
  /^(?:\[redacted:|\$|<|\{|%|\*+$|x+$|\.\.\.|…|(?:true|false|null|nil|none|undefined|required|optional|string|changeme|your[_-]|example|placeholder|env\b|process\.env|os\.environ|getenv)|(?:include|omit|same-origin)$)/i;
/** A value that is code, not a literal: a call, a member access such as config.password, a keyword, a comparison. */
const CODE_VALUE =
  /^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(|\.[A-Za-z_$][\w$]*$)|(?:await|new|yield|typeof|function|lambda|require|this|self)$|[=<>!])/;

/** A path (the shell's PWD=/home/me) is not a password. */
const PATH_VALUE = /^(?:~|\.{1,2})?\/[\w./-]*$/;

/** A password typed on a command line, not a variable or a placeholder (PASSWORD, <pass>, $DB_PASS). */
const isLiteralPassword = (value: string) => !PLACEHOLDER.test(value) && !/^[A-Z][A-Z0-9_]*$/.test(value);

/** A command-line value: 'quoted', "quoted" or bare, never a marker left by an earlier pass. */
const ARG = String.raw`(?:'([^'\n]{1,200})'|"([^"\n]{1,200})"|(?!\[redacted:)([^\s'"]{1,200}))`;
/** An environment variable's name that says it holds a secret (upper case: the convention of every shell and Dockerfile). */
const SECRET_ENV_NAME = `[A-Z0-9_]{0,60}?${SECRET_NAME.toUpperCase()}`;

/** Crypt(3) and htpasswd hashes: bcrypt, MD5 (apr1 and $1$), SHA-256/512 crypt, yescrypt, {SHA} and {SSHA}. */
const PASSWORD_HASH = [
  String.raw`\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}`,
  String.raw`\$(?:apr1|1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}`,
  String.raw`\$[56]\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}`,
  String.raw`\$y\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{1,32}\$[./A-Za-z0-9]{43}`,
  String.raw`\{SHA\}[A-Za-z0-9+/]{27}=`,
  String.raw`\{SSHA\}[A-Za-z0-9+/]{32,80}={0,2}`,
].join('|');

/** A .pgpass field that is a port or a wildcard, and fields that are all hex pairs (a MAC address, not a password file). */
const isPgpassLine = (secret: string) => isLiteralPassword(secret) && !/^[0-9a-f]{1,2}$/i.test(secret);

/** Words that follow "password is" in ordinary prose. */
const PROSE_AFTER_PASSWORD_IS = new Set(
  'a an the not no now still too very also and or but in on at for of to by with without being been set stored saved expired weak strong empty missing hidden changed reset secure long short same different wrong incorrect correct invalid valid required case what that this which unknown written somewhere there here please'.split(
    ' ',
  ),
);

/** Rules in priority order: when two find overlapping text, the earlier rule's id labels it. */
export const CAIRN_RULES: readonly CairnRule[] = [
  {
    id: 'private-key',
    keywords: ['private key'],
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/,
  },
  { id: 'cairn-key', keywords: ['cairn_'], pattern: /\bcairn_(?:tkn|stp)_[A-Za-z0-9_-]{10,}/ },
  { id: 'jwt', keywords: ['eyj'], pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  {
    id: 'aws-access-key',
    keywords: ['akia', 'asia', 'agpa', 'aida', 'aroa', 'anpa', 'anva', 'aipa', 'abia', 'acca'],
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}\b/,
  },
  {
    id: 'github-token',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/,
  },
  { id: 'gitlab-token', keywords: ['glpat-'], pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { id: 'stripe-webhook-secret', keywords: ['whsec_'], pattern: /\bwhsec_[A-Za-z0-9+/=]{24,}/ },
  // Generic: gitleaks' vault-service-token and pypi-upload-token label the long forms they know.
  { id: 'vault-token', keywords: ['hvs.', 'hvb.', 'hvr.'], pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/, generic: true },
  { id: 'gcp-oauth-client-secret', keywords: ['gocspx-'], pattern: /\bGOCSPX-[A-Za-z0-9_-]{24,}/ },
  // A PyPI (or TestPyPI) token is a macaroon: "pypi-" and base64 of its binary header, AgE…
  { id: 'pypi-token', keywords: ['pypi-age'], pattern: /\bpypi-AgE[A-Za-z0-9_-]{30,}/, generic: true },
  {
    id: 'gcp-private-key-id',
    keywords: ['private_key_id'],
    pattern: /["']?private_key_id["']?\s*[:=]\s*["']?([a-f0-9]{40})\b/i,
    secretGroup: 1,
  },
  // A Sentry DSN: its public (and legacy secret) key is the URL's user part.
  {
    id: 'sentry-dsn',
    keywords: ['://'],
    pattern: /\bhttps?:\/\/([a-f0-9]{32})(?::[a-f0-9]{32})?@[\w.-]+(?::\d+)?\/(?:[\w-]+\/)*\d+\b/i,
    secretGroup: 1,
  },
  // PuTTY .ppk: the lines after "Private-Lines: N" are the private key, up to its MAC.
  {
    id: 'putty-private-key',
    keywords: ['private-lines'],
    pattern: /(?<=Private-Lines:[ \t]*\d+[ \t]*\r?\n)[A-Za-z0-9+/=\r\n]+?(?=\r?\nPrivate-(?:MAC|Hash):|$)/,
  },
  // ~/.netrc and _netrc: "machine HOST login USER password SECRET", on one line or several.
  {
    id: 'netrc-password',
    keywords: ['machine', 'default'],
    pattern: /\b(?:machine[ \t]+\S+|default)\b(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(?!\[redacted:)(\S+)/,
    secretGroup: 1,
  },
  // Passwords given on a command line: sshpass -p, mysql -pSECRET or --password=SECRET (with a space, mysql prompts), twine/psql-style -p/--password.
  {
    id: 'command-line-password',
    keywords: ['sshpass'],
    pattern: /\bsshpass\b[^\n]*?\s-p[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|(?!\[redacted:)([^\s'"]+))/,
    validate: isLiteralPassword,
  },
  {
    id: 'command-line-password',
    keywords: ['mysql', 'mariadb'],
    pattern:
      /\b(?:mysql(?:dump|admin|import|check|sh)?|mariadb(?:-dump|-admin)?)\b[^\n]*?\s(?:-p|--password=)(?:'([^'\n]+)'|"([^"\n]+)"|(?!\[redacted:)([^\s'"]+))/,
    validate: isLiteralPassword,
  },
  // redis-cli -a PASSWORD / --pass PASSWORD (REDISCLI_AUTH is the safe way).
  {
    id: 'command-line-password',
    keywords: ['redis-cli'],
    pattern: new RegExp(String.raw`\bredis-cli\b[^\n]{0,300}?\s(?:-a|--pass)(?:[ \t]+|=)${ARG}`),
    validate: isLiteralPassword,
  },
  // docker login -p / --password (and podman, nerdctl, buildah, skopeo, helm registry, oras, crane, regctl); --password-stdin is the safe way.
  {
    id: 'command-line-password',
    keywords: ['login'],
    pattern: new RegExp(
      String.raw`\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|regctl|helm(?:[ \t]+registry)?|(?:regctl[ \t]+)?registry)[ \t]+login\b[^\n]{0,300}?\s(?:-p|--password)(?:[ \t]+|=)${ARG}`,
    ),
    validate: isLiteralPassword,
  },
  // openssl's -passin/-passout/-pass pass:SECRET (env:VAR and file:PATH name where it is instead).
  {
    id: 'command-line-password',
    keywords: ['pass:'],
    pattern: new RegExp(String.raw`(?<![\w-])-(?:passin|passout|pass)[ \t]+["']?pass:${ARG}`),
    validate: isLiteralPassword,
  },
  // smbclient -U user%password (and rpcclient, smbcacls, smbget, winexe), --user=user%password.
  {
    id: 'command-line-password',
    keywords: ['smbclient', 'rpcclient', 'smbcacls', 'smbget', 'winexe'],
    pattern:
      /\b(?:smbclient|rpcclient|smbcacls|smbget|winexe)\b[^\n]{0,300}?\s(?:-U|--user(?:name)?)(?:[ \t]*|=)["']?[^\s%'"]{1,100}%([^\s'"]{1,200})/,
    validate: isLiteralPassword,
  },
  // Dockerfile `ENV DB_PASS secret` and fish `set -gx API_SECRET secret`: a name and its value separated by spaces.
  {
    id: 'secret-assignment',
    keywords: ['env', 'set'],
    pattern: new RegExp(
      String.raw`(?<![\w-])(?:ENV|set(?:[ \t]+-[a-zA-Z]{1,3}){0,3})[ \t]+${SECRET_ENV_NAME}[ \t]+${ARG}`,
    ),
    validate: isLiteralPassword,
  },
  // Kubernetes and compose env lists: `- name: DB_PASS` then `value: secret` on the next line.
  {
    id: 'secret-assignment',
    keywords: ['value:'],
    pattern: new RegExp(String.raw`\bname:[ \t]*["']?${SECRET_ENV_NAME}["']?[ \t]*\r?\n[ \t]{0,40}value:[ \t]*${ARG}`),
    validate: isLiteralPassword,
  },
  // ~/.pgpass: hostname:port:database:username:password, one a line (\: escapes a colon).
  {
    id: 'pgpass-password',
    keywords: [],
    pattern: /^[ \t]*[^\s:#]{1,253}:(?:\d{1,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:((?:[^\s:\\]|\\.){1,200})[ \t]*\r?$/m,
    secretGroup: 1,
    validate: isPgpassLine,
  },
  // Password hashes (htpasswd, /etc/shadow, crypt): crackable offline, so as secret as the password.
  {
    id: 'password-hash',
    keywords: ['$2', '$apr1$', '$1$', '$5$', '$6$', '$y$', '{sha}', '{ssha}'],
    pattern: new RegExp(String.raw`(?<![\w$])(?:${PASSWORD_HASH})(?![./A-Za-z0-9])`),
    secretGroup: 0,
  },
  // A private key's base64 body without its BEGIN line: the DER openings of PKCS#8, PKCS#1 RSA and SEC1 EC keys, line breaks real, escaped (\n) or flattened to spaces.
  {
    id: 'private-key',
    keywords: ['miie', 'miij', 'miic', 'miig', 'mhccaqee', 'mc4caqawbqydk2vw', 'migh', 'mig2'],
    pattern:
      /(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}(?:IBADANBgkqhkiG9w0BAQEFAASC|IBAAKC)|MHcCAQEEI|MC4CAQAwBQYDK2VwBCIEI|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg|MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDA)(?:[A-Za-z0-9+/=]|(?:\\[rn]|[ \t\r\n]){1,4}(?=[A-Za-z0-9+/]{16})){16,8000}/,
    secretGroup: 0,
  },
  {
    id: 'command-line-password',
    keywords: ['twine'],
    pattern: /\btwine\b[^\n]*?\s(?:-p|--password)(?:[ \t]+|=)(?:'([^'\n]+)'|"([^"\n]+)"|(?!\[redacted:)([^\s'"]+))/,
    validate: isLiteralPassword,
  },
  // A Cookie or Set-Cookie header's value: session ids and auth cookies.
  {
    id: 'cookie-header',
    keywords: ['cookie'],
    pattern: /\b(?:set-)?cookie["']?[ \t]*:[ \t]*["']?(?!\[redacted:)([^\s"';=]+=[^\s"';]{16,}[^\n"']*)/i,
    secretGroup: 1,
  },
  {
    id: 'slack-webhook',
    keywords: ['hooks.slack.com'],
    pattern: /\bhttps?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{20,}/,
  },
  { id: 'slack-token', keywords: ['xox'], pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/ },
  { id: 'anthropic-key', keywords: ['sk-ant-'], pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { id: 'openai-key', keywords: ['sk-'], pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/ },
  { id: 'stripe-key', keywords: ['sk_', 'rk_'], pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { id: 'google-api-key', keywords: ['aiza'], pattern: /\bAIza[A-Za-z0-9_-]{35}\b/ },
  { id: 'npm-token', keywords: ['npm_'], pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { id: 'huggingface-token', keywords: ['hf_'], pattern: /\bhf_[A-Za-z0-9]{30,40}\b/ },
  { id: 'sendgrid-api-key', keywords: ['sg.'], pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}\b/ },
  { id: 'telegram-bot-token', keywords: [':aa'], pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])/ },
  // Discord bot tokens: base64 of the bot's numeric id (M, N or O first), a 6-character timestamp, an HMAC.
  {
    id: 'discord-bot-token',
    keywords: [],
    pattern: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/,
  },
  {
    id: 'azure-storage-key',
    keywords: ['accountkey', 'sharedaccesskey'],
    pattern: /\b((?:AccountKey|SharedAccessKey)\s*=\s*)([A-Za-z0-9+/]{40,100}={0,2})/i,
    secretGroup: 2,
  },
  // scheme://user:password@host and scheme://:password@host; a password may itself hold an @.
  {
    id: 'url-credentials',
    keywords: ['://'],
    pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@[]*:(?!\[redacted:)([^\s/]+)@(?=[^\s@/]+)/i,
    secretGroup: 1,
  },
  {
    id: 'authorization-header',
    keywords: ['authorization'],
    pattern:
      /\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|bearer|token|bot|digest|apikey)\s+(?!\[redacted:)|(?!(?:basic|bearer|token|bot|digest|apikey)\b|\[redacted:))([A-Za-z0-9._~+/=:@-]{6,})/i,
    secretGroup: 1,
  },
  {
    id: 'bearer-token',
    keywords: ['bearer'],
    pattern: /\bbearer\s+(?!\[redacted:)([A-Za-z0-9._~+/=-]{16,})/i,
    secretGroup: 1,
  },
  {
    id: 'basic-auth',
    keywords: ['basic'],
    pattern: /\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/i,
    secretGroup: 1,
    validate: isBasicCredential,
  },
  {
    id: 'credit-card',
    keywords: [],
    pattern:
      /(?<![\w.,-])(?:\d{12,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{4,5})(?!\w|[.,-]\d)/,
    secretGroup: 0,
    validate: isCardNumber,
  },
  // An AWS secret key nobody labelled: exactly 40 base64 characters that look random.
  {
    id: 'aws-secret-key',
    keywords: [],
    pattern: /(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])/,
    validate: looksLikeAwsSecret,
    generic: true,
  },
  {
    id: 'secret-assignment',
    keywords: ['secret', 'token', 'pass', 'pwd', 'key', 'credential', '_pw', '.pw', '-pw', 'rediscli'],
    // NAME = "quoted, with spaces" | NAME: unquoted-to-whitespace (no ; so connection strings keep their other fields).
    // Never across a line break: an empty PASSWORD= must not take the next line's NAME=value.
    // Only the end of the name is matched: a pattern for the whole name would backtrack quadratically.
    pattern: new RegExp(
      String.raw`${SECRET_NAME}["'\x60]?[ \t]*(?:=|:=|=>|:)[ \t]*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|\x60([^\x60\n]{1,200})\x60|([^\s"'\x60;]{1,200}))`,
      'i',
    ),
    generic: true,
    validate: (value) => !PLACEHOLDER.test(value) && !CODE_VALUE.test(value) && !PATH_VALUE.test(value),
  },
  {
    id: 'password-phrase',
    keywords: ['pass', 'pw', 'pin', 'code'],
    // "my password is X", "the wifi password was X", "pw: X", "passcode = X".
    pattern:
      /\b(?:(?:my|the|our|your|his|her|their|new|old|admin|root|wifi|wi-fi)\s+(?:[\w-]+\s+)?(?:password|passphrase|passcode|pass|pw|pin)\s+(?:is|was|=|:)|\bpw[ \t]*[:=])[ \t]*[:=]?[ \t]*["'“]?([^\s"'”]+?)["'”]?(?=[.,;!?)]*(?:\s|$))/i,
    secretGroup: 1,
    generic: true,
    validate: (value) => !PROSE_AFTER_PASSWORD_IS.has(value.toLowerCase()) && !PLACEHOLDER.test(value),
  },
];

#!/usr/bin/env node
// Generated from packages/capture by `npm run build -w @cairn/capture`. Do not edit.

// packages/capture/src/bin.ts
import { performance } from "node:perf_hooks";

// packages/contract/src/index.ts
var INSTALLER_USER_AGENT = "cairn-mcp-installer/1.0";
var CAPTURE_USER_AGENT = "cairn-capture/1.0";
var CAPTURE_CLIENT_IDS = ["claude-code", "codex", "gemini-cli", "kiro-cli", "kiro-ide"];
var CAPTURE_LIMITS = {
  /** Longest text of one turn, in UTF-16 code units (JavaScript string length). */
  maxTurnChars: 65536,
  /** Most turns in one request. */
  maxTurnsPerRequest: 50,
  /** Largest request body, in bytes. */
  maxBodyBytes: 1024 * 1024
};

// packages/capture/src/config.ts
import { readFileSync, statSync } from "node:fs";
function loadCaptureConfig(env, paths2) {
  if (env.CAIRN_URL && env.CAIRN_API_KEY) return checked(env.CAIRN_URL, env.CAIRN_API_KEY, "CAIRN_URL");
  let mode;
  try {
    mode = statSync(paths2.config).mode;
  } catch {
    return { ok: false, reason: `no configuration: set CAIRN_URL and CAIRN_API_KEY or create ${paths2.config}` };
  }
  if (process.platform !== "win32" && (mode & 63) !== 0) {
    return {
      ok: false,
      reason: `refused ${paths2.config}: mode ${(mode & 511).toString(8)} lets other users read the key; run chmod 600 on it`
    };
  }
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(paths2.config, "utf8"));
  } catch {
    return { ok: false, reason: `${paths2.config} is not valid JSON` };
  }
  const { url, apiKey } = parsed ?? {};
  if (typeof url !== "string" || typeof apiKey !== "string" || !apiKey) {
    return { ok: false, reason: `${paths2.config} needs string fields "url" and "apiKey"` };
  }
  return checked(url, apiKey, `${paths2.config} "url"`);
}
function checked(url, apiKey, source) {
  if (!/^https?:\/\/[^\s]+$/i.test(url)) return { ok: false, reason: `${source} is not an http(s) URL` };
  return { ok: true, config: { url, apiKey } };
}
function captureEndpoint(url) {
  return `${url.replace(/\/+$/, "").replace(/\/mcp$/, "")}/api/v1/capture`;
}

// packages/capture/src/hook-input.ts
var CLIENT_IDS = CAPTURE_CLIENT_IDS;
var EVENTS = ["prompt", "stop", "edit"];
var GEMINI_NO_RESPONSE = "[no response text]";
function readsStdin(client2) {
  return client2 !== "kiro-ide";
}
function readHookInput(client2, event2, stdin2, env, processCwd) {
  if (event2 === "edit") return { ok: false, reason: null };
  if (client2 === "kiro-ide") {
    if (event2 === "stop") return { ok: false, reason: null };
    return found("user", env.USER_PROMPT, { cwd: processCwd });
  }
  let input;
  try {
    const parsed = JSON.parse(stdin2);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
      return { ok: false, reason: "hook input on stdin is not a JSON object" };
    input = parsed;
  } catch {
    return { ok: false, reason: stdin2.trim() ? "hook input on stdin is not JSON" : "no hook input on stdin" };
  }
  const context = { sessionId: str(input.session_id), turnId: str(input.turn_id), cwd: str(input.cwd) ?? processCwd };
  if (event2 === "prompt") return found("user", input.prompt, context);
  if (input.stop_hook_active === true) return { ok: false, reason: null };
  if (client2 === "gemini-cli") {
    return input.prompt_response === GEMINI_NO_RESPONSE ? { ok: false, reason: null } : found("assistant", input.prompt_response, context);
  }
  return found("assistant", input.last_assistant_message, context);
}
function found(role, text, context) {
  if (typeof text !== "string" || !text.trim()) return { ok: false, reason: null };
  return { ok: true, value: { role, text, ...stripUndefined(context) } };
}
function str(value) {
  return typeof value === "string" && value ? value : void 0;
}
function stripUndefined(o) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== void 0));
}

// packages/capture/src/log.ts
import { renameSync, statSync as statSync3 } from "node:fs";

// packages/capture/src/private-files.ts
import { appendFileSync, chmodSync, mkdirSync, statSync as statSync2 } from "node:fs";
function ensurePrivateDir(dir) {
  mkdirSync(dir, { recursive: true, mode: 448 });
}
function appendPrivate(file, text) {
  appendFileSync(file, text, { mode: 384 });
  if (process.platform !== "win32" && (statSync2(file).mode & 63) !== 0) chmodSync(file, 384);
}

// packages/capture/src/log.ts
var MAX_LOG_BYTES = 256 * 1024;
function logReason(paths2, context, reason) {
  try {
    ensurePrivateDir(paths2.dir);
    if (sizeOf(paths2.log) > MAX_LOG_BYTES) renameSync(paths2.log, `${paths2.log}.1`);
    appendPrivate(paths2.log, `${(/* @__PURE__ */ new Date()).toISOString()} ${context} ${reason.replace(/\s+/g, " ")}
`);
  } catch {
  }
}
function sizeOf(file) {
  try {
    return statSync3(file).size;
  } catch {
    return 0;
  }
}

// packages/capture/src/send.ts
import { request as httpRequest } from "node:http";
var MAX_ANSWER_BYTES = 64 * 1024;
async function postTurns(config, turns, signal2) {
  let answer;
  try {
    const url = new URL(captureEndpoint(config.url));
    const headers = {
      Authorization: `Bearer ${config.apiKey}`,
      "User-Agent": CAPTURE_USER_AGENT,
      "Content-Type": "application/json"
    };
    answer = await postJson(url, JSON.stringify({ turns }), headers, signal2, MAX_ANSWER_BYTES);
  } catch (error) {
    return { kind: "retry", reason: signal2.aborted ? "timed out" : `unreachable (${codeOf(error)})` };
  }
  const body = parseJson(answer.text);
  if (answer.status >= 200 && answer.status < 300)
    return { kind: "acknowledged", stored: num(body?.stored), duplicates: num(body?.duplicates) };
  if (answer.status === 429 || answer.status >= 500) return { kind: "retry", reason: `HTTP ${answer.status}` };
  const code = typeof body?.error?.code === "string" ? ` ${body.error.code.slice(0, 60)}` : "";
  return { kind: "rejected", status: answer.status, reason: `HTTP ${answer.status}${code}` };
}
async function postJson(url, body, headers, signal2, maxBytes) {
  const send = url.protocol === "https:" ? (await import("node:https")).request : httpRequest;
  return new Promise((resolve2, reject) => {
    const request = send(
      url,
      { method: "POST", headers: { ...headers, "Content-Length": Buffer.byteLength(body) }, signal: signal2 },
      (response) => {
        const chunks = [];
        let size = 0;
        response.on("data", (chunk) => {
          size += chunk.length;
          if (size <= maxBytes) chunks.push(chunk);
        });
        response.on(
          "end",
          () => resolve2({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") })
        );
        response.on("error", reject);
      }
    );
    request.on("error", reject);
    request.end(body);
  });
}
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return void 0;
  }
}
function num(value) {
  return typeof value === "number" ? value : 0;
}
function codeOf(error) {
  const e = error;
  const code = e?.code ?? e?.errors?.[0]?.code;
  return typeof code === "string" ? code : "network error";
}

// packages/capture/src/spool.ts
import { readdirSync, readFileSync as readFileSync2, renameSync as renameSync2, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
var STALE_CLAIM_MS = 3e4;
function appendToSpool(paths2, turns) {
  if (turns.length === 0) return;
  ensurePrivateDir(paths2.dir);
  appendPrivate(paths2.spool, turns.map((t) => `${JSON.stringify(t)}
`).join(""));
}
function claimSpool(paths2, now = Date.now()) {
  const files = [];
  const prefix = `${basename(paths2.spool)}.`;
  let names;
  try {
    names = readdirSync(paths2.dir);
  } catch {
    return null;
  }
  const stale = names.filter(
    (n) => n.startsWith(prefix) && n.endsWith(".processing") && now - Number(n.slice(prefix.length).split(".")[0]) > STALE_CLAIM_MS
  ).sort();
  for (const source of [...stale.map((n) => join(paths2.dir, n)), paths2.spool]) {
    const claimed = join(
      dirname(paths2.spool),
      `${prefix}${now}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.processing`
    );
    try {
      renameSync2(source, claimed);
      files.push(claimed);
    } catch {
    }
  }
  if (files.length === 0) return null;
  const seen = /* @__PURE__ */ new Set();
  const turns = files.flatMap(readTurns).filter((t) => !seen.has(t.id) && seen.add(t.id));
  return { files, turns };
}
function settleClaim(paths2, claim, acknowledged) {
  const seen = /* @__PURE__ */ new Set();
  const keep = claim.files.flatMap(readTurns).filter((t) => !acknowledged.has(t.id) && !seen.has(t.id) && seen.add(t.id));
  appendToSpool(paths2, keep);
  for (const file of claim.files) unlinkSync(file);
}
function readTurns(file) {
  const turns = [];
  for (const line of readFileSync2(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const t = JSON.parse(line);
      if (typeof t?.id === "string" && typeof t.text === "string") turns.push(t);
    } catch {
    }
  }
  return turns;
}

// packages/capture/src/turn.ts
import { createHash } from "node:crypto";
import { basename as basename2 } from "node:path";

// packages/contract/src/redaction/checks.ts
function shannonEntropy(text) {
  if (!text) return 0;
  const counts = /* @__PURE__ */ new Map();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}
function passesLuhn(digits) {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
var CARD_NETWORKS = [
  { prefix: /^4/, lengths: [13, 16, 19] },
  { prefix: /^(?:5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/, lengths: [16] },
  { prefix: /^3[47]/, lengths: [15] },
  { prefix: /^(?:6011|65|64[4-9])/, lengths: [16, 19] },
  { prefix: /^35(?:2[89]|[3-8])/, lengths: [16, 17, 18, 19] },
  { prefix: /^3(?:0[0-5]|[689])/, lengths: [14, 16, 19] },
  { prefix: /^62/, lengths: [16, 17, 18, 19] },
  { prefix: /^(?:5018|5020|5038|6304|6759|676[1-3])/, lengths: [12, 13, 14, 15, 16, 17, 18, 19] }
];
function isCardNumber(candidate) {
  const digits = candidate.replace(/[ -]/g, "");
  if (/^(\d)\1+$/.test(digits)) return false;
  return CARD_NETWORKS.some((n) => n.prefix.test(digits) && n.lengths.includes(digits.length)) && passesLuhn(digits);
}
function looksLikeAwsSecret(candidate) {
  if (!/[A-Z]/.test(candidate) || !/[a-z]/.test(candidate) || !/[0-9]/.test(candidate)) return false;
  if (/^[0-9a-fA-F]+$/.test(candidate)) return false;
  if ((candidate.match(/\//g)?.length ?? 0) > 3 || candidate.includes("//")) return false;
  if (/[a-z]{9,}/.test(candidate) || (candidate.match(/[a-z]{4,}/g)?.length ?? 0) >= 3) return false;
  return shannonEntropy(candidate) >= 4.3;
}
function isBasicCredential(candidate) {
  if (candidate.length % 4 === 1) return false;
  const decoded = Buffer.from(candidate, "base64").toString("latin1");
  return /^[\x20-\x7e]+:[\x20-\x7e]*$/.test(decoded);
}

// packages/contract/src/redaction/cairn-rules.ts
var SECRET_NAME = /(?:secret|token|password|passwd|pwd|passphrase|[_.-]pass|[_.-]pw|pgpass|sshpass|rediscli[_.-]?auth|secret[_.-]?id|api[_.-]?key|apikey|access[_.-]?key|secret[_.-]?key|private[_.-]?key|account[_.-]?key|shared[_.-]?access[_.-]?key|master[_.-]?key|signing[_.-]?key|encryption[_.-]?key|auth[_.-]?key|credentials?|client[_.-]?secret)/.source;
var PLACEHOLDER = /^(?:\[redacted:|\$|<|\{|%|\*+$|x+$|\.\.\.|…|(?:true|false|null|nil|none|undefined|required|optional|string|changeme|your[_-]|example|placeholder|env\b|process\.env|os\.environ|getenv)|(?:include|omit|same-origin)$)/i;
var CODE_VALUE = /^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(|\.[A-Za-z_$][\w$]*$)|(?:await|new|yield|typeof|function|lambda|require|this|self)$|[=<>!])/;
var PATH_VALUE = /^(?:~|\.{1,2})?\/[\w./-]*$/;
var isLiteralPassword = (value) => !PLACEHOLDER.test(value) && !/^[A-Z][A-Z0-9_]*$/.test(value);
var ARG = String.raw`(?:'([^'\n]{1,200})'|"([^"\n]{1,200})"|(?!\[redacted:)([^\s'"]{1,200}))`;
var SECRET_ENV_NAME = `[A-Z0-9_]{0,60}?${SECRET_NAME.toUpperCase()}`;
var PASSWORD_HASH = [
  String.raw`\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}`,
  String.raw`\$(?:apr1|1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}`,
  String.raw`\$[56]\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}`,
  String.raw`\$y\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{1,32}\$[./A-Za-z0-9]{43}`,
  String.raw`\{SHA\}[A-Za-z0-9+/]{27}=`,
  String.raw`\{SSHA\}[A-Za-z0-9+/]{32,80}={0,2}`
].join("|");
var isPgpassLine = (secret) => isLiteralPassword(secret) && !/^[0-9a-f]{1,2}$/i.test(secret);
var PROSE_AFTER_PASSWORD_IS = new Set(
  "a an the not no now still too very also and or but in on at for of to by with without being been set stored saved expired weak strong empty missing hidden changed reset secure long short same different wrong incorrect correct invalid valid required case what that this which unknown written somewhere there here please".split(
    " "
  )
);
var CAIRN_RULES = [
  {
    id: "private-key",
    keywords: ["private key"],
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/
  },
  { id: "cairn-key", keywords: ["cairn_"], pattern: /\bcairn_(?:tkn|stp)_[A-Za-z0-9_-]{10,}/ },
  { id: "jwt", keywords: ["eyj"], pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  {
    id: "aws-access-key",
    keywords: ["akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa", "abia", "acca"],
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}\b/
  },
  {
    id: "github-token",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/
  },
  { id: "gitlab-token", keywords: ["glpat-"], pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { id: "stripe-webhook-secret", keywords: ["whsec_"], pattern: /\bwhsec_[A-Za-z0-9+/=]{24,}/ },
  // Generic: gitleaks' vault-service-token and pypi-upload-token label the long forms they know.
  { id: "vault-token", keywords: ["hvs.", "hvb.", "hvr."], pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/, generic: true },
  { id: "gcp-oauth-client-secret", keywords: ["gocspx-"], pattern: /\bGOCSPX-[A-Za-z0-9_-]{24,}/ },
  // A PyPI (or TestPyPI) token is a macaroon: "pypi-" and base64 of its binary header, AgE…
  { id: "pypi-token", keywords: ["pypi-age"], pattern: /\bpypi-AgE[A-Za-z0-9_-]{30,}/, generic: true },
  {
    id: "gcp-private-key-id",
    keywords: ["private_key_id"],
    pattern: /["']?private_key_id["']?\s*[:=]\s*["']?([a-f0-9]{40})\b/i,
    secretGroup: 1
  },
  // A Sentry DSN: its public (and legacy secret) key is the URL's user part.
  {
    id: "sentry-dsn",
    keywords: ["://"],
    pattern: /\bhttps?:\/\/([a-f0-9]{32})(?::[a-f0-9]{32})?@[\w.-]+(?::\d+)?\/(?:[\w-]+\/)*\d+\b/i,
    secretGroup: 1
  },
  // PuTTY .ppk: the lines after "Private-Lines: N" are the private key, up to its MAC.
  {
    id: "putty-private-key",
    keywords: ["private-lines"],
    pattern: /(?<=Private-Lines:[ \t]*\d+[ \t]*\r?\n)[A-Za-z0-9+/=\r\n]+?(?=\r?\nPrivate-(?:MAC|Hash):|$)/
  },
  // ~/.netrc and _netrc: "machine HOST login USER password SECRET", on one line or several.
  {
    id: "netrc-password",
    keywords: ["machine", "default"],
    pattern: /\b(?:machine[ \t]+\S+|default)\b(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(?!\[redacted:)(\S+)/,
    secretGroup: 1
  },
  // Passwords given on a command line: sshpass -p, mysql -pSECRET or --password=SECRET (with a space, mysql prompts), twine/psql-style -p/--password.
  {
    id: "command-line-password",
    keywords: ["sshpass"],
    pattern: /\bsshpass\b[^\n]*?\s-p[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|(?!\[redacted:)([^\s'"]+))/,
    validate: isLiteralPassword
  },
  {
    id: "command-line-password",
    keywords: ["mysql", "mariadb"],
    pattern: /\b(?:mysql(?:dump|admin|import|check|sh)?|mariadb(?:-dump|-admin)?)\b[^\n]*?\s(?:-p|--password=)(?:'([^'\n]+)'|"([^"\n]+)"|(?!\[redacted:)([^\s'"]+))/,
    validate: isLiteralPassword
  },
  // redis-cli -a PASSWORD / --pass PASSWORD (REDISCLI_AUTH is the safe way).
  {
    id: "command-line-password",
    keywords: ["redis-cli"],
    pattern: new RegExp(String.raw`\bredis-cli\b[^\n]{0,300}?\s(?:-a|--pass)(?:[ \t]+|=)${ARG}`),
    validate: isLiteralPassword
  },
  // docker login -p / --password (and podman, nerdctl, buildah, skopeo, helm registry, oras, crane, regctl); --password-stdin is the safe way.
  {
    id: "command-line-password",
    keywords: ["login"],
    pattern: new RegExp(
      String.raw`\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|regctl|helm(?:[ \t]+registry)?|(?:regctl[ \t]+)?registry)[ \t]+login\b[^\n]{0,300}?\s(?:-p|--password)(?:[ \t]+|=)${ARG}`
    ),
    validate: isLiteralPassword
  },
  // openssl's -passin/-passout/-pass pass:SECRET (env:VAR and file:PATH name where it is instead).
  {
    id: "command-line-password",
    keywords: ["pass:"],
    pattern: new RegExp(String.raw`(?<![\w-])-(?:passin|passout|pass)[ \t]+["']?pass:${ARG}`),
    validate: isLiteralPassword
  },
  // smbclient -U user%password (and rpcclient, smbcacls, smbget, winexe), --user=user%password.
  {
    id: "command-line-password",
    keywords: ["smbclient", "rpcclient", "smbcacls", "smbget", "winexe"],
    pattern: /\b(?:smbclient|rpcclient|smbcacls|smbget|winexe)\b[^\n]{0,300}?\s(?:-U|--user(?:name)?)(?:[ \t]*|=)["']?[^\s%'"]{1,100}%([^\s'"]{1,200})/,
    validate: isLiteralPassword
  },
  // Dockerfile `ENV DB_PASS secret` and fish `set -gx API_SECRET secret`: a name and its value separated by spaces.
  {
    id: "secret-assignment",
    keywords: ["env", "set"],
    pattern: new RegExp(
      String.raw`(?<![\w-])(?:ENV|set(?:[ \t]+-[a-zA-Z]{1,3}){0,3})[ \t]+${SECRET_ENV_NAME}[ \t]+${ARG}`
    ),
    validate: isLiteralPassword
  },
  // Kubernetes and compose env lists: `- name: DB_PASS` then `value: secret` on the next line.
  {
    id: "secret-assignment",
    keywords: ["value:"],
    pattern: new RegExp(String.raw`\bname:[ \t]*["']?${SECRET_ENV_NAME}["']?[ \t]*\r?\n[ \t]{0,40}value:[ \t]*${ARG}`),
    validate: isLiteralPassword
  },
  // ~/.pgpass: hostname:port:database:username:password, one a line (\: escapes a colon).
  {
    id: "pgpass-password",
    keywords: [],
    pattern: /^[ \t]*[^\s:#]{1,253}:(?:\d{1,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:((?:[^\s:\\]|\\.){1,200})[ \t]*\r?$/m,
    secretGroup: 1,
    validate: isPgpassLine
  },
  // Password hashes (htpasswd, /etc/shadow, crypt): crackable offline, so as secret as the password.
  {
    id: "password-hash",
    keywords: ["$2", "$apr1$", "$1$", "$5$", "$6$", "$y$", "{sha}", "{ssha}"],
    pattern: new RegExp(String.raw`(?<![\w$])(?:${PASSWORD_HASH})(?![./A-Za-z0-9])`),
    secretGroup: 0
  },
  // A private key's base64 body without its BEGIN line: the DER openings of PKCS#8, PKCS#1 RSA and SEC1 EC keys, line breaks real, escaped (\n) or flattened to spaces.
  {
    id: "private-key",
    keywords: ["miie", "miij", "miic", "miig", "mhccaqee", "mc4caqawbqydk2vw", "migh", "mig2"],
    pattern: /(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}(?:IBADANBgkqhkiG9w0BAQEFAASC|IBAAKC)|MHcCAQEEI|MC4CAQAwBQYDK2VwBCIEI|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg|MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDA)(?:[A-Za-z0-9+/=]|(?:\\[rn]|[ \t\r\n]){1,4}(?=[A-Za-z0-9+/]{16})){16,8000}/,
    secretGroup: 0
  },
  {
    id: "command-line-password",
    keywords: ["twine"],
    pattern: /\btwine\b[^\n]*?\s(?:-p|--password)(?:[ \t]+|=)(?:'([^'\n]+)'|"([^"\n]+)"|(?!\[redacted:)([^\s'"]+))/,
    validate: isLiteralPassword
  },
  // A Cookie or Set-Cookie header's value: session ids and auth cookies.
  {
    id: "cookie-header",
    keywords: ["cookie"],
    pattern: /\b(?:set-)?cookie["']?[ \t]*:[ \t]*["']?(?!\[redacted:)([^\s"';=]+=[^\s"';]{16,}[^\n"']*)/i,
    secretGroup: 1
  },
  {
    id: "slack-webhook",
    keywords: ["hooks.slack.com"],
    pattern: /\bhttps?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{20,}/
  },
  { id: "slack-token", keywords: ["xox"], pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/ },
  { id: "anthropic-key", keywords: ["sk-ant-"], pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { id: "openai-key", keywords: ["sk-"], pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/ },
  { id: "stripe-key", keywords: ["sk_", "rk_"], pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { id: "google-api-key", keywords: ["aiza"], pattern: /\bAIza[A-Za-z0-9_-]{35}\b/ },
  { id: "npm-token", keywords: ["npm_"], pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { id: "huggingface-token", keywords: ["hf_"], pattern: /\bhf_[A-Za-z0-9]{30,40}\b/ },
  { id: "sendgrid-api-key", keywords: ["sg."], pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}\b/ },
  { id: "telegram-bot-token", keywords: [":aa"], pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])/ },
  // Discord bot tokens: base64 of the bot's numeric id (M, N or O first), a 6-character timestamp, an HMAC.
  {
    id: "discord-bot-token",
    keywords: [],
    pattern: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/
  },
  {
    id: "azure-storage-key",
    keywords: ["accountkey", "sharedaccesskey"],
    pattern: /\b((?:AccountKey|SharedAccessKey)\s*=\s*)([A-Za-z0-9+/]{40,100}={0,2})/i,
    secretGroup: 2
  },
  // scheme://user:password@host and scheme://:password@host; a password may itself hold an @.
  {
    id: "url-credentials",
    keywords: ["://"],
    pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@[]*:(?!\[redacted:)([^\s/]+)@(?=[^\s@/]+)/i,
    secretGroup: 1
  },
  {
    id: "authorization-header",
    keywords: ["authorization"],
    pattern: /\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|bearer|token|bot|digest|apikey)\s+(?!\[redacted:)|(?!(?:basic|bearer|token|bot|digest|apikey)\b|\[redacted:))([A-Za-z0-9._~+/=:@-]{6,})/i,
    secretGroup: 1
  },
  {
    id: "bearer-token",
    keywords: ["bearer"],
    pattern: /\bbearer\s+(?!\[redacted:)([A-Za-z0-9._~+/=-]{16,})/i,
    secretGroup: 1
  },
  {
    id: "basic-auth",
    keywords: ["basic"],
    pattern: /\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/i,
    secretGroup: 1,
    validate: isBasicCredential
  },
  {
    id: "credit-card",
    keywords: [],
    pattern: /(?<![\w.,-])(?:\d{12,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{4,5})(?!\w|[.,-]\d)/,
    secretGroup: 0,
    validate: isCardNumber
  },
  // An AWS secret key nobody labelled: exactly 40 base64 characters that look random.
  {
    id: "aws-secret-key",
    keywords: [],
    pattern: /(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])/,
    validate: looksLikeAwsSecret,
    generic: true
  },
  {
    id: "secret-assignment",
    keywords: ["secret", "token", "pass", "pwd", "key", "credential", "_pw", ".pw", "-pw", "rediscli"],
    // NAME = "quoted, with spaces" | NAME: unquoted-to-whitespace (no ; so connection strings keep their other fields).
    // Never across a line break: an empty PASSWORD= must not take the next line's NAME=value.
    // Only the end of the name is matched: a pattern for the whole name would backtrack quadratically.
    pattern: new RegExp(
      String.raw`${SECRET_NAME}["'\x60]?[ \t]*(?:=|:=|=>|:)[ \t]*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|\x60([^\x60\n]{1,200})\x60|([^\s"'\x60;]{1,200}))`,
      "i"
    ),
    generic: true,
    validate: (value) => !PLACEHOLDER.test(value) && !CODE_VALUE.test(value) && !PATH_VALUE.test(value)
  },
  {
    id: "password-phrase",
    keywords: ["pass", "pw", "pin", "code"],
    // "my password is X", "the wifi password was X", "pw: X", "passcode = X".
    pattern: /\b(?:(?:my|the|our|your|his|her|their|new|old|admin|root|wifi|wi-fi)\s+(?:[\w-]+\s+)?(?:password|passphrase|passcode|pass|pw|pin)\s+(?:is|was|=|:)|\bpw[ \t]*[:=])[ \t]*[:=]?[ \t]*["'“]?([^\s"'”]+?)["'”]?(?=[.,;!?)]*(?:\s|$))/i,
    secretGroup: 1,
    generic: true,
    validate: (value) => !PROSE_AFTER_PASSWORD_IS.has(value.toLowerCase()) && !PLACEHOLDER.test(value)
  }
];

// packages/contract/src/redaction/vendor/gitleaks/rules.generated.ts
var GITLEAKS_GLOBAL_ALLOWLIST = { "target": "secret", "regexes": [{ "source": "^true|false|null$", "flags": "i" }, { "source": "^(?:[aA]+|[bB]+|[cC]+|[dD]+|[eE]+|[fF]+|[gG]+|[hH]+|[iI]+|[jJ]+|[kK]+|[lL]+|[mM]+|[nN]+|[oO]+|[pP]+|[qQ]+|[rR]+|[sS]+|[tT]+|[uU]+|[vV]+|[wW]+|[xX]+|[yY]+|[zZ]+|\\*+|\\.+)$", "flags": "" }, { "source": "^\\$(?:\\d+|{\\d+})$", "flags": "" }, { "source": "^\\$(?:[A-Z_]+|[a-z_]+)$", "flags": "" }, { "source": "^\\${(?:[A-Z_]+|[a-z_]+)}$", "flags": "" }, { "source": "^\\{\\{[ \\x09]*[\\w ().|]+[ \\x09]*}}$", "flags": "" }, { "source": `^\\$\\{\\{[ \\x09]*(?:(?:env|github|secrets|vars)(?:\\.[A-Za-z]\\w+)+[\\w "'&./=|]*)[ \\x09]*}}$`, "flags": "" }, { "source": "^%(?:[A-Z_]+|[a-z_]+)%$", "flags": "" }, { "source": "^%[+\\-# 0]?[bcdeEfFgGoOpqstTUvxX]$", "flags": "" }, { "source": "^\\{\\d{0,2}}$", "flags": "" }, { "source": "^@(?:[A-Z_]+|[a-z_]+)@$", "flags": "" }, { "source": "^/Users/[a-z0-9A-Z]+/[\\w .-/]+$", "flags": "" }, { "source": "^/(?:bin|etc|home|opt|tmp|usr|var)/[\\w ./\\-]+$", "flags": "" }], "stopwords": ["014df517-39d1-4453-b7b3-9930c563627c", "abcdefghijklmnopqrstuvwxyz"], "all": false };
var GITLEAKS_RULES = [
  { "id": "1password-secret-key", "source": "\\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\\b", "flags": "", "keywords": ["a3-"], "entropy": 3.8 },
  { "id": "1password-service-account-token", "source": "ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}", "flags": "", "keywords": ["ops_"], "entropy": 4 },
  { "id": "adafruit-api-key", "source": `(?:adafruit)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9_\\-]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["adafruit"] },
  { "id": "adobe-client-id", "source": `(?:adobe)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["adobe"], "entropy": 2 },
  { "id": "adobe-client-secret", "source": "\\b(p8e-[a-z0-9A-Z]{32})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["p8e-"], "entropy": 2 },
  { "id": "age-secret-key", "source": "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "flags": "", "keywords": ["age-secret-key-1"] },
  { "id": "airtable-api-key", "source": `(?:airtable)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{17})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["airtable"] },
  { "id": "airtable-personnal-access-token", "source": "\\b(pat[A-Za-z0-9]{14}\\.[a-f0-9]{64})\\b", "flags": "", "keywords": ["airtable"] },
  { "id": "algolia-api-key", "source": `(?:algolia)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["algolia"] },
  { "id": "alibaba-access-key-id", "source": "\\b(LTAI[a-z0-9A-Z]{20})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["ltai"], "entropy": 2 },
  { "id": "alibaba-secret-key", "source": `(?:alibaba)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{30})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["alibaba"], "entropy": 2 },
  { "id": "anthropic-admin-api-key", "source": "\\b(sk-ant-admin01-[a-zA-Z0-9_\\-]{93}AA)(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sk-ant-admin01"] },
  { "id": "anthropic-api-key", "source": "\\b(sk-ant-api03-[a-zA-Z0-9_\\-]{93}AA)(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sk-ant-api03"] },
  { "id": "artifactory-api-key", "source": "\\bAKCp[A-Za-z0-9]{69}\\b", "flags": "", "keywords": ["akcp"], "entropy": 4.5 },
  { "id": "artifactory-reference-token", "source": "\\bcmVmd[A-Za-z0-9]{59}\\b", "flags": "", "keywords": ["cmvmd"], "entropy": 4.5 },
  { "id": "asana-client-id", "source": `(?:asana)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9]{16})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["asana"] },
  { "id": "asana-client-secret", "source": `(?:asana)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["asana"] },
  { "id": "atlassian-api-token", "source": `(?:(?:ATLASSIAN|[Aa]tlassian)|(?:CONFLUENCE|[Cc]onfluence)|(?:JIRA|[Jj]ira))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9A-Z]{20}[a-f0-9A-F]{4})(?:[\`'"\\s;]|\\\\[nrNR]|$)|\\b([Aa][Tt][Aa][Tt][Tt]3[A-Za-z0-9_\\-=a-zA-Z]{186})(?:[\`'"\\s;]|\\\\[nrNR]|$)`, "flags": "", "namePrefix": true, "keywords": ["atlassian", "confluence", "jira", "atatt3"], "entropy": 3.5 },
  { "id": "authress-service-client-access-key", "source": "\\b((?:sc|ext|scauth|authress)_[a-z0-9A-Z]{5,30}\\.[a-z0-9A-Z]{4,6}\\.(?:acc)[_\\-][a-z0-9\\-A-Z]{10,32}\\.[a-z0-9+/_=\\-A-Z]{30,120})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sc_", "ext_", "scauth_", "authress_"], "entropy": 2 },
  { "id": "aws-access-token", "source": "\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\b", "flags": "", "keywords": ["a3t", "akia", "asia", "abia", "acca"], "entropy": 3, "allowlists": [{ "target": "secret", "regexes": [{ "source": "[^\\n]+EXAMPLE$", "flags": "" }], "stopwords": [], "all": false }] },
  { "id": "aws-amazon-bedrock-api-key-long-lived", "source": "\\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["absk"], "entropy": 3 },
  { "id": "aws-amazon-bedrock-api-key-short-lived", "source": "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", "flags": "", "keywords": ["bedrock-api-key-"], "entropy": 3 },
  { "id": "azure-ad-client-secret", "source": "(?:^|[\\\\'\"`\\s>=:(,)])([a-zA-Z0-9_~.]{3}\\dQ~[a-zA-Z0-9_~.\\-]{31,34})(?:$|[\\\\'\"`\\s<),])", "flags": "", "keywords": ["q~"], "entropy": 3 },
  { "id": "beamer-api-token", "source": `(?:beamer)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(b_[a-z0-9=_\\-]{44})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["beamer"] },
  { "id": "bitbucket-client-id", "source": `(?:bitbucket)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["bitbucket"] },
  { "id": "bitbucket-client-secret", "source": `(?:bitbucket)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["bitbucket"] },
  { "id": "bittrex-access-key", "source": `(?:bittrex)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["bittrex"] },
  { "id": "bittrex-secret-key", "source": `(?:bittrex)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["bittrex"] },
  { "id": "cisco-meraki-api-key", "source": `(?:(?:(?:[Mm]eraki|MERAKI))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9a-f]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "", "namePrefix": true, "keywords": ["meraki"], "entropy": 3 },
  { "id": "clickhouse-cloud-api-secret-key", "source": "\\b(4b1d[A-Za-z0-9]{38})\\b", "flags": "", "keywords": ["4b1d"], "entropy": 3 },
  { "id": "clojars-api-token", "source": "CLOJARS_[a-z0-9]{60}", "flags": "i", "keywords": ["clojars_"], "entropy": 2 },
  { "id": "cloudflare-api-key", "source": `(?:cloudflare)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9_\\-]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["cloudflare"], "entropy": 2 },
  { "id": "cloudflare-global-api-key", "source": `(?:cloudflare)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{37})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["cloudflare"], "entropy": 2 },
  { "id": "cloudflare-origin-ca-key", "source": "\\b(v1\\.0-[a-f0-9]{24}-[a-f0-9]{146})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["cloudflare", "v1.0-"], "entropy": 2 },
  { "id": "codecov-access-token", "source": `(?:codecov)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["codecov"] },
  { "id": "cohere-api-token", "source": `(?:(?:[cC][oO][hH][eE][rR][eE]|[Cc][Oo]_[Aa][Pp][Ii]_[Kk][Ee][Yy])(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "", "namePrefix": true, "keywords": ["cohere", "co_api_key"], "entropy": 4 },
  { "id": "coinbase-access-token", "source": `(?:coinbase)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9_\\-]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["coinbase"] },
  { "id": "confluent-access-token", "source": `(?:confluent)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{16})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["confluent"] },
  { "id": "confluent-secret-key", "source": `(?:confluent)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["confluent"] },
  { "id": "contentful-delivery-api-token", "source": `(?:contentful)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{43})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["contentful"] },
  { "id": "curl-auth-header", "source": `\\bcurl\\b(?:[^\\n]{0,1000}?|[^\\n]{0,1000}?(?:[\\x0d\\x0a]{1,2}[^\\n]{0,1000}?){1,5})[ \\x09\\x0a\\x0d](?:-H|--header)(?:=|[ \\x09]{0,5})(?:"(?:[Aa][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]:[ \\x09]{0,5}(?:[Bb][aA][sS][iI][cC][ \\x09]([a-z0-9+/A-Z]{8,}={0,3})|(?:[Bb][eE][aA][rR][eE][rR]|(?:[Aa][pP][iI]-)?[Tt][oO][kK][eE][nN])[ \\x09]([\\w=~@.+/\\-]{8,})|([\\w=~@.+/\\-]{8,}))|(?:(?:[Xx]-(?:[a-zA-Z]+-)?)?(?:[Aa][pP][iI]-?)?(?:[Kk][eE][yY]|[Tt][oO][kK][eE][nN])):[ \\x09]{0,5}([\\w=~@.+/\\-]{8,}))"|'(?:[Aa][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]:[ \\x09]{0,5}(?:[Bb][aA][sS][iI][cC][ \\x09]([a-z0-9+/A-Z]{8,}={0,3})|(?:[Bb][eE][aA][rR][eE][rR]|(?:[Aa][pP][iI]-)?[Tt][oO][kK][eE][nN])[ \\x09]([\\w=~@.+/\\-]{8,})|([\\w=~@.+/\\-]{8,}))|(?:(?:[Xx]-(?:[a-zA-Z]+-)?)?(?:[Aa][pP][iI]-?)?(?:[Kk][eE][yY]|[Tt][oO][kK][eE][nN])):[ \\x09]{0,5}([\\w=~@.+/\\-]{8,}))')(?:\\B|\\s|$)`, "flags": "", "keywords": ["curl"], "entropy": 2.75 },
  { "id": "curl-auth-user", "source": `\\bcurl\\b(?:[^\\n]{0,1000}|[^\\n]{0,1000}(?:[\\x0d\\x0a]{1,2}[^\\n]{0,1000}){1,5})[ \\x09\\x0a\\x0d](?:-u|--user)(?:=|[ \\x09]{0,5})("(:[^"]{3,}|[^:"]{3,}:|[^:"]{3,}:[^"]{3,})"|'([^:']{3,}:[^']{3,})'|((?:"[^"]{3,}"|'[^']{3,}'|[\\w$@.\\-]+):(?:"[^"]{3,}"|'[^']{3,}'|[\\w\${}@.\\-]+)))(?:\\s|$)`, "flags": "", "keywords": ["curl"], "entropy": 2, "allowlists": [{ "target": "secret", "regexes": [{ "source": "[^:]+:(?:change(?:it|me)|pass(?:word)?|pwd|test|token|\\*+|x+)", "flags": "" }, { "source": `['"]?<[^>]+>['"]?:['"]?<[^>]+>|<[^:]+:[^>]+>['"]?`, "flags": "" }, { "source": "[^:]+:\\[[^\\]]+]", "flags": "" }, { "source": `['"]?[^:]+['"]?:['"]?\\$(?:\\d|\\w+|\\{(?:\\d|\\w+)})['"]?`, "flags": "" }, { "source": "\\$\\([^)]+\\):\\$\\([^)]+\\)", "flags": "" }, { "source": `['"]?\\$?{{[^}]+}}['"]?:['"]?\\$?{{[^}]+}}['"]?`, "flags": "" }], "stopwords": [], "all": false }] },
  { "id": "databricks-api-token", "source": "\\b(dapi[a-f0-9]{32}(?:-\\d)?)(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["dapi"], "entropy": 3 },
  { "id": "datadog-access-token", "source": `(?:datadog)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["datadog"] },
  { "id": "defined-networking-api-token", "source": `(?:dnkey)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(dnkey-[a-z0-9=_\\-]{26}-[a-z0-9=_\\-]{52})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["dnkey"] },
  { "id": "digitalocean-access-token", "source": "\\b(doo_v1_[a-f0-9]{64})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["doo_v1_"], "entropy": 3 },
  { "id": "digitalocean-pat", "source": "\\b(dop_v1_[a-f0-9]{64})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["dop_v1_"], "entropy": 3 },
  { "id": "digitalocean-refresh-token", "source": "\\b(dor_v1_[a-f0-9]{64})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "i", "keywords": ["dor_v1_"] },
  { "id": "discord-api-token", "source": `(?:discord)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["discord"] },
  { "id": "discord-client-id", "source": `(?:discord)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9]{18})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["discord"], "entropy": 2 },
  { "id": "discord-client-secret", "source": `(?:discord)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["discord"], "entropy": 2 },
  { "id": "doppler-api-token", "source": "dp\\.pt\\.[a-z0-9A-Z]{43}", "flags": "", "keywords": ["dp.pt."], "entropy": 2 },
  { "id": "droneci-access-token", "source": `(?:droneci)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["droneci"] },
  { "id": "dropbox-api-token", "source": `(?:dropbox)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{15})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["dropbox"] },
  { "id": "dropbox-long-lived-api-token", "source": `(?:dropbox)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{11}(AAAAAAAAAA)[a-z0-9\\-_=]{43})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["dropbox"] },
  { "id": "dropbox-short-lived-api-token", "source": `(?:dropbox)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(sl\\.[a-z0-9\\-=_]{135})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["dropbox"] },
  { "id": "duffel-api-token", "source": "duffel_(?:test|live)_[a-z0-9_\\-=A-Z]{43}", "flags": "", "keywords": ["duffel_"], "entropy": 2 },
  { "id": "dynatrace-api-token", "source": "dt0c01\\.[a-z0-9A-Z]{24}\\.[a-z0-9A-Z]{64}", "flags": "", "keywords": ["dt0c01."], "entropy": 4 },
  { "id": "easypost-api-token", "source": "\\bEZAK[a-z0-9A-Z]{54}\\b", "flags": "", "keywords": ["ezak"], "entropy": 2 },
  { "id": "easypost-test-api-token", "source": "\\bEZTK[a-z0-9A-Z]{54}\\b", "flags": "", "keywords": ["eztk"], "entropy": 2 },
  { "id": "etsy-access-token", "source": `(?:(?:ETSY|[Ee]tsy))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9A-Z]{24})(?:[\`'"\\s;]|\\\\[nrNR]|$)`, "flags": "", "namePrefix": true, "keywords": ["etsy"], "entropy": 3 },
  { "id": "facebook-access-token", "source": "\\b(\\d{15,16}(\\||%)[0-9a-z\\-_]{27,40})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "i", "keywords": ["facebook"], "entropy": 3 },
  { "id": "facebook-page-access-token", "source": "\\b(EAA[MC][a-z0-9A-Z]{100,})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["eaam", "eaac"], "entropy": 4 },
  { "id": "facebook-secret", "source": `(?:facebook)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["facebook"], "entropy": 3 },
  { "id": "fastly-api-token", "source": `(?:fastly)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["fastly"] },
  { "id": "finicity-api-token", "source": `(?:finicity)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["finicity"] },
  { "id": "finicity-client-secret", "source": `(?:finicity)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{20})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["finicity"] },
  { "id": "finnhub-access-token", "source": `(?:finnhub)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{20})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["finnhub"] },
  { "id": "flickr-access-token", "source": `(?:flickr)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["flickr"] },
  { "id": "flutterwave-encryption-key", "source": "FLWSECK_TEST-[a-h0-9A-H]{12}", "flags": "", "keywords": ["flwseck_test"], "entropy": 2 },
  { "id": "flutterwave-public-key", "source": "FLWPUBK_TEST-[a-h0-9A-H]{32}-[Xx]", "flags": "", "keywords": ["flwpubk_test"], "entropy": 2 },
  { "id": "flutterwave-secret-key", "source": "FLWSECK_TEST-[a-h0-9A-H]{32}-[Xx]", "flags": "", "keywords": ["flwseck_test"], "entropy": 2 },
  { "id": "flyio-access-token", "source": "\\b((?:fo1_[\\w\\-]{43}|fm1[ar]_[a-zA-Z0-9+/]{100,}={0,3}|fm2_[a-zA-Z0-9+/]{100,}={0,3}))(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["fo1_", "fm1", "fm2_"], "entropy": 4 },
  { "id": "frameio-api-token", "source": "fio-u-[a-z0-9\\-_=A-Z]{64}", "flags": "", "keywords": ["fio-u-"] },
  { "id": "freemius-secret-key", "source": `["']secret_key["']\\s*=>\\s*["'](sk_[\\S]{29})["']`, "flags": "i", "keywords": ["secret_key"] },
  { "id": "freshbooks-access-token", "source": `(?:freshbooks)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["freshbooks"] },
  { "id": "gcp-api-key", "source": "\\b(AIza[\\w\\-]{35})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["aiza"], "entropy": 4, "allowlists": [{ "target": "secret", "regexes": [{ "source": "AIzaSyabcdefghijklmnopqrstuvwxyz1234567", "flags": "" }, { "source": "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs", "flags": "" }, { "source": "AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM", "flags": "" }, { "source": "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU", "flags": "" }, { "source": "AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0", "flags": "" }, { "source": "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A", "flags": "" }, { "source": "AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c", "flags": "" }, { "source": "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4", "flags": "" }, { "source": "AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY", "flags": "" }, { "source": "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM", "flags": "" }, { "source": "AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ", "flags": "" }, { "source": "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g", "flags": "" }, { "source": "AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU", "flags": "" }, { "source": "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw", "flags": "" }, { "source": "AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE", "flags": "" }, { "source": "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY", "flags": "" }], "stopwords": [], "all": false }] },
  { "id": "generic-api-key", "source": `(?:[aA][cC][cC][eE][sS][sS]|[aA][uU][tT][hH]|(?:[Aa]pi|API)|[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL]|[cC][rR][eE][dD][sS]|[kK][eE][yY]|[pP][aA][sS][sS][wW](?:[oO][rR])?[dD]|[sS][eE][cC][rR][eE][tT]|[tT][oO][kK][eE][nN])(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([\\w.=\\-]{10,150}|[a-z0-9A-Z][a-z0-9+/A-Z]{11,}={0,3})(?:[\`'"\\s;]|\\\\[nrNR]|$)`, "flags": "", "namePrefix": true, "keywords": ["access", "api", "auth", "key", "credential", "creds", "passwd", "password", "secret", "token"], "entropy": 3.5, "allowlists": [{ "target": "secret", "regexes": [{ "source": "^[a-zA-Z_.\\-]+$", "flags": "" }], "stopwords": [], "all": false }, { "target": "match", "regexes": [{ "source": "(?:[aA][cC][cC][eE][sS][sS](?:[iI][bB][iI][lL][iI][tT][yY]|[oO][rR])|[aA][cC][cC][eE][sS][sS][_.\\-]?[iI][dD]|[rR][aA][nN][dD][oO][mM][_.\\-]?[aA][cC][cC][eE][sS][sS]|[aA][pP][iI][_.\\-]?(?:[iI][dD]|[nN][aA][mM][eE]|[vV][eE][rR][sS][iI][oO][nN])|[rR][aA][pP][iI][dD]|[cC][aA][pP][iI][tT][aA][lL]|[a-z0-9\\-A-Z]*?[aA][pP][iI][a-z0-9\\-A-Z]*?:[jJ][aA][rR]:|[aA][uU][tT][hH][oO][rR]|[Xx]-[Mm][Ss]-[Ee][xX][cC][hH][aA][nN][gG][eE]-[Oo][rR][gG][aA][nN][iI][zZ][aA][tT][iI][oO][nN]-[Aa][uU][tT][hH]|[Aa][uU][tT][hH][eE][nN][tT][iI][cC][aA][tT][iI][oO][nN]-[Rr][eE][sS][uU][lL][tT][sS]|(?:[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]?[_.\\-]?[iI][dD]|[wW][iI][tT][hH][Cc][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS])|(?:[bB][uU][cC][kK][eE][tT]|[fF][oO][rR][eE][iI][gG][nN]|[hH][oO][tT]|[iI][dD][xX]|[nN][aA][tT][uU][rR][aA][lL]|[pP][rR][iI][mM][aA][rR][yY]|[pP][uU][bB](?:[lL][iI][cC])?|[sS][cC][hH][eE][mM][aA]|[sS][eE][qQ][uU][eE][nN][cC][eE])[_.\\-]?[kK][eE][yY]|(?:[tT][uU][rR][kK][eE][yY])|[kK][eE][yY][_.\\-]?(?:[aA][lL][iI][aA][sS]|[bB][oO][aA][rR][dD]|[cC][oO][dD][eE]|[fF][rR][aA][mM][eE]|[iI][dD]|[lL][eE][nN][gG][tT][hH]|[mM][eE][sS][hH]|[nN][aA][mM][eE]|[pP][aA][iI][rR]|[pP][rR][eE][sS][sS](?:[eE][dD])?|[rR][iI][nN][gG]|[sS][eE][lL][eE][cC][tT][oO][rR]|[sS][iI][gG][nN][aA][tT][uU][rR][eE]|[sS][iI][zZ][eE]|[sS][tT][oO][nN][eE]|[sS][tT][oO][rR][eE][tT][yY][pP][eE]|[wW][oO][rR][dD]|[uU][pP]|[dD][oO][wW][nN]|[lL][eE][fF][tT]|[rR][iI][gG][hH][tT])|[kK][eE][yY][_.\\-]?[vV][aA][uU][lL][tT][_.\\-]?(?:[iI][dD]|[nN][aA][mM][eE])|[kK][eE][yY][Vv][aA][uU][lL][tT][Tt][oO][Ss][tT][oO][rR][eE][Ss][eE][cC][rR][eE][tT][sS]|[kK][eE][yY](?:[sS][tT][oO][rR][eE]|[tT][aA][bB])[_.\\-]?(?:[fF][iI][lL][eE]|[pP][aA][tT][hH])|[iI][sS][sS][uU][eE][rR][kK][eE][yY][hH][aA][sS][hH]|(?:[DdMm]onkey|[DM]ONKEY)|[kK][eE][yY][iI][nN][gG]|(?:[sS][eE][cC][rR][eE][tT])[_.\\-]?(?:[lL][eE][nN][gG][tT][hH]|[nN][aA][mM][eE]|[sS][iI][zZ][eE])|[Uu][sS][eE][rR][Ss][eE][cC][rR][eE][tT][sS][Ii][dD]|(?:[cC][sS][rR][fF])[_.\\-]?[tT][oO][kK][eE][nN]|(?:[iI][oO]\\.[jJ][sS][oO][nN][wW][eE][bB][tT][oO][kK][eE][nN][ \\x09]?:[ \\x09]?[\\w\\-]+)|(?:[aA][pP][iI]|[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]|[tT][oO][kK][eE][nN])[_.\\-]?(?:[eE][nN][dD][pP][oO][iI][nN][tT]|[uU][rR][ilIL])|[pP][uU][bB][lL][iI][cC][_.\\-]?[tT][oO][kK][eE][nN]|(?:[kK][eE][yY]|[tT][oO][kK][eE][nN])[_.\\-]?[fF][iI][lL][eE]|(?:(?:[A-Z_]+=\\x0a[A-Z_]+=|[a-z_]+=\\x0a[a-z_]+=)(?:\\x0a|$))|(?:(?:[A-Z.]+=\\x0a[A-Z.]+=|[a-z.]+=\\x0a[a-z.]+=)(?:\\x0a|$)))", "flags": "" }], "stopwords": ["000000", "6fe4476ee5a1832882e326b506d14126", "_ec2_", "aaaaaa", "about", "abstract", "academy", "acces", "account", "act-", "act.", "act_", "action", "active", "actively", "activity", "adapter", "add-", "add-on", "add.", "add_", "addon", "addres", "admin", "adobe", "advanced", "adventure", "agent", "agile", "air-", "air.", "air_", "ajax", "akka", "alert", "alfred", "algorithm", "all-", "all.", "all_", "alloy", "alpha", "amazon", "amqp", "analysi", "analytic", "analyzer", "android", "angular", "angularj", "animate", "animation", "another", "ansible", "answer", "ant-", "ant.", "ant_", "any-", "any.", "any_", "apache", "app-", "app.", "app_", "apple", "arch", "archive", "archived", "arduino", "array", "art-", "art.", "art_", "article", "asp-", "asp.", "asp_", "asset", "async", "atom", "attention", "audio", "audit", "aura", "auth", "author", "authorize", "auto", "automated", "automatic", "awesome", "aws_", "azure", "back", "backbone", "backend", "backup", "bar-", "bar.", "bar_", "base", "based", "bash", "basic", "batch", "been", "beer", "behavior", "being", "benchmark", "best", "beta", "better", "big-", "big.", "big_", "binary", "binding", "bit-", "bit.", "bit_", "bitcoin", "block", "blog", "board", "book", "bookmark", "boost", "boot", "bootstrap", "bosh", "bot-", "bot.", "bot_", "bower", "box-", "box.", "box_", "boxen", "bracket", "branch", "bridge", "browser", "brunch", "buffer", "bug-", "bug.", "bug_", "build", "builder", "building", "buildout", "buildpack", "built", "bundle", "busines", "but-", "but.", "but_", "button", "cache", "caching", "cakephp", "calendar", "call", "camera", "campfire", "can-", "can.", "can_", "canva", "captcha", "capture", "card", "carousel", "case", "cassandra", "cat-", "cat.", "cat_", "category", "center", "cento", "challenge", "change", "changelog", "channel", "chart", "chat", "cheat", "check", "checker", "chef", "ches", "chinese", "chosen", "chrome", "ckeditor", "clas", "classe", "classic", "clean", "cli-", "cli.", "cli_", "client", "clojure", "clone", "closure", "cloud", "club", "cluster", "cms-", "cms_", "coco", "code", "coding", "coffee", "color", "combination", "combo", "command", "commander", "comment", "commit", "common", "community", "compas", "compiler", "complete", "component", "composer", "computer", "computing", "con-", "con.", "con_", "concept", "conf", "config", "connect", "connector", "console", "contact", "container", "contao", "content", "contest", "context", "control", "convert", "converter", "conway'", "cookbook", "cookie", "cool", "copy", "cordova", "core", "couchbase", "couchdb", "countdown", "counter", "course", "craft", "crawler", "create", "creating", "creator", "credential", "crm-", "crm.", "crm_", "cros", "crud", "csv-", "csv.", "csv_", "cube", "cucumber", "cuda", "current", "currently", "custom", "daemon", "dark", "dart", "dash", "dashboard", "data", "database", "date", "day-", "day.", "day_", "dead", "debian", "debug", "debugger", "deck", "define", "del-", "del.", "del_", "delete", "demo", "deploy", "design", "designer", "desktop", "detection", "detector", "dev-", "dev.", "dev_", "develop", "developer", "device", "devise", "diff", "digital", "directive", "directory", "discovery", "display", "django", "dns-", "dns_", "doc-", "doc.", "doc_", "docker", "docpad", "doctrine", "document", "doe-", "doe.", "doe_", "dojo", "dom-", "dom.", "dom_", "domain", "don't", "done", "dot-", "dot.", "dot_", "dotfile", "download", "draft", "drag", "drill", "drive", "driven", "driver", "drop", "dropbox", "drupal", "dsl-", "dsl.", "dsl_", "dynamic", "easy", "ecdsa", "eclipse", "edit", "editing", "edition", "editor", "element", "emac", "email", "embed", "embedded", "ember", "emitter", "emulator", "encoding", "endpoint", "engine", "english", "enhanced", "entity", "entry", "env_", "episode", "erlang", "error", "espresso", "event", "evented", "example", "exchange", "exercise", "experiment", "expire", "exploit", "explorer", "export", "exporter", "expres", "ext-", "ext.", "ext_", "extended", "extension", "external", "extra", "extractor", "fabric", "facebook", "factory", "fake", "fast", "feature", "feed", "fewfwef", "ffmpeg", "field", "file", "filter", "find", "finder", "firefox", "firmware", "first", "fish", "fix-", "fix_", "flash", "flask", "flat", "flex", "flexible", "flickr", "flow", "fluent", "fluentd", "fluid", "folder", "font", "force", "foreman", "fork", "form", "format", "formatter", "forum", "foundry", "framework", "free", "friend", "friendly", "front-end", "frontend", "ftp-", "ftp.", "ftp_", "fuel", "full", "fun-", "fun.", "fun_", "func", "future", "gaia", "gallery", "game", "gateway", "gem-", "gem.", "gem_", "gen-", "gen.", "gen_", "general", "generator", "generic", "genetic", "get-", "get.", "get_", "getenv", "getting", "ghost", "gist", "git-", "git.", "git_", "github", "gitignore", "gitlab", "glas", "gmail", "gnome", "gnu-", "gnu.", "gnu_", "goal", "golang", "gollum", "good", "google", "gpu-", "gpu.", "gpu_", "gradle", "grail", "graph", "graphic", "great", "grid", "groovy", "group", "grunt", "guard", "gui-", "gui.", "gui_", "guide", "guideline", "gulp", "gwt-", "gwt.", "gwt_", "hack", "hackathon", "hacker", "hacking", "hadoop", "haml", "handler", "hardware", "has-", "has_", "hash", "haskell", "have", "haxe", "hello", "help", "helper", "here", "hero", "heroku", "high", "hipchat", "history", "home", "homebrew", "homepage", "hook", "host", "hosting", "hot-", "hot.", "hot_", "house", "how-", "how.", "how_", "html", "http", "hub-", "hub.", "hub_", "hubot", "human", "icon", "ide-", "ide.", "ide_", "idea", "identity", "idiomatic", "image", "impact", "import", "important", "importer", "impres", "index", "infinite", "info", "injection", "inline", "input", "inside", "inspector", "instagram", "install", "installer", "instant", "intellij", "interface", "internet", "interview", "into", "intro", "ionic", "iphone", "ipython", "irc-", "irc_", "iso-", "iso.", "iso_", "issue", "jade", "jasmine", "java", "jbos", "jekyll", "jenkin", "jetbrains", "job-", "job.", "job_", "joomla", "jpa-", "jpa.", "jpa_", "jquery", "json", "just", "kafka", "karma", "kata", "kernel", "keyboard", "kindle", "kit-", "kit.", "kit_", "kitchen", "knife", "koan", "kohana", "lab-", "lab.", "lab_", "lambda", "lamp", "language", "laravel", "last", "latest", "latex", "launcher", "layer", "layout", "lazy", "ldap", "leaflet", "league", "learn", "learning", "led-", "led.", "led_", "leetcode", "les-", "les.", "les_", "level", "leveldb", "lib-", "lib.", "lib_", "librarie", "library", "license", "life", "liferay", "light", "lightbox", "like", "line", "link", "linked", "linkedin", "linux", "lisp", "list", "lite", "little", "load", "loader", "local", "location", "lock", "log-", "log.", "log_", "logger", "logging", "logic", "login", "logstash", "longer", "look", "love", "lua-", "lua.", "lua_", "mac-", "mac.", "mac_", "machine", "made", "magento", "magic", "mail", "make", "maker", "making", "man-", "man.", "man_", "manage", "manager", "manifest", "manual", "map-", "map.", "map_", "mapper", "mapping", "markdown", "markup", "master", "math", "matrix", "maven", "md5", "mean", "media", "mediawiki", "meetup", "memcached", "memory", "menu", "merchant", "message", "messaging", "meta", "metadata", "meteor", "method", "metric", "micro", "middleman", "migration", "minecraft", "miner", "mini", "minimal", "mirror", "mit-", "mit.", "mit_", "mobile", "mocha", "mock", "mod-", "mod.", "mod_", "mode", "model", "modern", "modular", "module", "modx", "money", "mongo", "mongodb", "mongoid", "mongoose", "monitor", "monkey", "more", "motion", "moved", "movie", "mozilla", "mqtt", "mule", "multi", "multiple", "music", "mustache", "mvc-", "mvc.", "mvc_", "mysql", "nagio", "name", "native", "need", "neo-", "neo.", "neo_", "nest", "nested", "net-", "net.", "net_", "nette", "network", "new-", "new.", "new_", "next", "nginx", "ninja", "nlp-", "nlp.", "nlp_", "node", "nodej", "nosql", "not-", "not.", "not_", "note", "notebook", "notepad", "notice", "notifier", "now-", "now.", "now_", "number", "oauth", "object", "objective", "obsolete", "ocaml", "octopres", "official", "old-", "old.", "old_", "onboard", "online", "only", "open", "opencv", "opengl", "openshift", "openwrt", "option", "oracle", "org-", "org.", "org_", "origin", "original", "orm-", "orm.", "orm_", "osx-", "osx_", "our-", "our.", "our_", "out-", "out.", "out_", "output", "over", "overview", "own-", "own.", "own_", "pack", "package", "packet", "page", "panel", "paper", "paperclip", "para", "parallax", "parallel", "parse", "parser", "parsing", "particle", "party", "password", "patch", "path", "pattern", "payment", "paypal", "pdf-", "pdf.", "pdf_", "pebble", "people", "perl", "personal", "phalcon", "phoenix", "phone", "phonegap", "photo", "php-", "php.", "php_", "physic", "picker", "pipeline", "platform", "play", "player", "please", "plu-", "plu.", "plu_", "plug-in", "plugin", "plupload", "png-", "png.", "png_", "poker", "polyfill", "polymer", "pool", "pop-", "pop.", "pop_", "popcorn", "popup", "port", "portable", "portal", "portfolio", "post", "power", "powered", "powerful", "prelude", "pretty", "preview", "principle", "print", "pro-", "pro.", "pro_", "problem", "proc", "product", "profile", "profiler", "program", "progres", "project", "protocol", "prototype", "provider", "proxy", "public", "pull", "puppet", "pure", "purpose", "push", "pusher", "pyramid", "python", "quality", "query", "queue", "quick", "rabbitmq", "rack", "radio", "rail", "railscast", "random", "range", "raspberry", "rdf-", "rdf.", "rdf_", "react", "reactive", "read", "reader", "readme", "ready", "real", "real-time", "reality", "realtime", "recipe", "recorder", "red-", "red.", "red_", "reddit", "redi", "redmine", "reference", "refinery", "refresh", "registry", "related", "release", "remote", "rendering", "repo", "report", "request", "require", "required", "requirej", "research", "resource", "response", "resque", "rest", "restful", "resume", "reveal", "reverse", "review", "riak", "rich", "right", "ring", "robot", "role", "room", "router", "routing", "rpc-", "rpc.", "rpc_", "rpg-", "rpg.", "rpg_", "rspec", "ruby-", "ruby.", "ruby_", "rule", "run-", "run.", "run_", "runner", "running", "runtime", "rust", "rvm-", "rvm.", "rvm_", "salt", "sample", "sandbox", "sas-", "sas.", "sas_", "sbt-", "sbt.", "sbt_", "scala", "scalable", "scanner", "schema", "scheme", "school", "science", "scraper", "scratch", "screen", "script", "scroll", "scs-", "scs.", "scs_", "sdk-", "sdk.", "sdk_", "sdl-", "sdl.", "sdl_", "search", "secure", "security", "see-", "see.", "see_", "seed", "select", "selector", "selenium", "semantic", "sencha", "send", "sentiment", "serie", "server", "service", "session", "set-", "set.", "set_", "setting", "setup", "sha1", "sha2", "sha256", "share", "shared", "sharing", "sheet", "shell", "shield", "shipping", "shop", "shopify", "shortener", "should", "show", "showcase", "side", "silex", "simple", "simulator", "single", "site", "skeleton", "sketch", "skin", "slack", "slide", "slider", "slim", "small", "smart", "smtp", "snake", "snapshot", "snippet", "soap", "social", "socket", "software", "solarized", "solr", "solution", "solver", "some", "soon", "source", "space", "spark", "spatial", "spec", "sphinx", "spine", "spotify", "spree", "spring", "sprite", "sql-", "sql.", "sql_", "sqlite", "ssh-", "ssh.", "ssh_", "stack", "staging", "standard", "stanford", "start", "started", "starter", "startup", "stat", "statamic", "state", "static", "statistic", "statsd", "statu", "steam", "step", "still", "stm-", "stm.", "stm_", "storage", "store", "storm", "story", "strategy", "stream", "streaming", "string", "stripe", "structure", "studio", "study", "stuff", "style", "sublime", "sugar", "suite", "summary", "super", "support", "supported", "svg-", "svg.", "svg_", "svn-", "svn.", "svn_", "swagger", "swift", "switch", "switcher", "symfony", "symphony", "sync", "synopsi", "syntax", "system", "tab-", "tab.", "tab_", "table", "tag-", "tag.", "tag_", "talk", "target", "task", "tcp-", "tcp.", "tcp_", "tdd-", "tdd.", "tdd_", "team", "tech", "template", "term", "terminal", "testing", "tetri", "text", "textmate", "theme", "theory", "three", "thrift", "time", "timeline", "timer", "tiny", "tinymce", "tip-", "tip.", "tip_", "title", "todo", "todomvc", "token", "tool", "toolbox", "toolkit", "top-", "top.", "top_", "tornado", "touch", "tower", "tracker", "tracking", "traffic", "training", "transfer", "translate", "transport", "tree", "trello", "try-", "try.", "try_", "tumblr", "tut-", "tut.", "tut_", "tutorial", "tweet", "twig", "twitter", "type", "typo", "ubuntu", "uiview", "ultimate", "under", "unit", "unity", "universal", "unix", "update", "updated", "upgrade", "upload", "uploader", "uri-", "uri.", "uri_", "url-", "url.", "url_", "usage", "usb-", "usb.", "usb_", "use-", "use.", "use_", "used", "useful", "user", "using", "util", "utilitie", "utility", "vagrant", "validator", "value", "variou", "varnish", "version", "via-", "via.", "via_", "video", "view", "viewer", "vim-", "vim.", "vim_", "vimrc", "virtual", "vision", "visual", "vpn", "want", "warning", "watch", "watcher", "wave", "way-", "way.", "way_", "weather", "web-", "web_", "webapp", "webgl", "webhook", "webkit", "webrtc", "website", "websocket", "welcome", "what", "what'", "when", "where", "which", "why-", "why.", "why_", "widget", "wifi", "wiki", "win-", "win.", "win_", "window", "wip-", "wip.", "wip_", "within", "without", "wizard", "word", "wordpres", "work", "worker", "workflow", "working", "workshop", "world", "wrapper", "write", "writer", "writing", "written", "www-", "www.", "www_", "xamarin", "xcode", "xml-", "xml.", "xml_", "xmpp", "xxxxxx", "yahoo", "yaml", "yandex", "yeoman", "yet-", "yet.", "yet_", "yii-", "yii.", "yii_", "youtube", "yui-", "yui.", "yui_", "zend", "zero", "zip-", "zip.", "zip_", "zsh-", "zsh.", "zsh_"], "all": false }, { "target": "line", "regexes": [{ "source": "--mount=type=secret,", "flags": "" }, { "source": `import[ \\x09]+{[ \\x09\\w,]+}[ \\x09]+from[ \\x09]+['"][^'"]+['"]`, "flags": "" }], "stopwords": [], "all": false }] },
  { "id": "github-app-token", "source": "(?:ghu|ghs)_[0-9a-zA-Z]{36}", "flags": "", "keywords": ["ghu_", "ghs_"], "entropy": 3, "allowlists": [] },
  { "id": "github-fine-grained-pat", "source": "github_pat_\\w{82}", "flags": "", "keywords": ["github_pat_"], "entropy": 3 },
  { "id": "github-oauth", "source": "gho_[0-9a-zA-Z]{36}", "flags": "", "keywords": ["gho_"], "entropy": 3 },
  { "id": "github-pat", "source": "ghp_[0-9a-zA-Z]{36}", "flags": "", "keywords": ["ghp_"], "entropy": 3, "allowlists": [] },
  { "id": "github-refresh-token", "source": "ghr_[0-9a-zA-Z]{36}", "flags": "", "keywords": ["ghr_"], "entropy": 3 },
  { "id": "gitlab-cicd-job-token", "source": "glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_\\-]{20}", "flags": "", "keywords": ["glcbt-"], "entropy": 3 },
  { "id": "gitlab-deploy-token", "source": "gldt-[0-9a-zA-Z_\\-]{20}", "flags": "", "keywords": ["gldt-"], "entropy": 3 },
  { "id": "gitlab-feature-flag-client-token", "source": "glffct-[0-9a-zA-Z_\\-]{20}", "flags": "", "keywords": ["glffct-"], "entropy": 3 },
  { "id": "gitlab-feed-token", "source": "glft-[0-9a-zA-Z_\\-]{20}", "flags": "", "keywords": ["glft-"], "entropy": 3 },
  { "id": "gitlab-incoming-mail-token", "source": "glimt-[0-9a-zA-Z_\\-]{25}", "flags": "", "keywords": ["glimt-"], "entropy": 3 },
  { "id": "gitlab-kubernetes-agent-token", "source": "glagent-[0-9a-zA-Z_\\-]{50}", "flags": "", "keywords": ["glagent-"], "entropy": 3 },
  { "id": "gitlab-oauth-app-secret", "source": "gloas-[0-9a-zA-Z_\\-]{64}", "flags": "", "keywords": ["gloas-"], "entropy": 3 },
  { "id": "gitlab-pat", "source": "glpat-[\\w\\-]{20}", "flags": "", "keywords": ["glpat-"], "entropy": 3 },
  { "id": "gitlab-pat-routable", "source": "\\bglpat-[0-9a-zA-Z_\\-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b", "flags": "", "keywords": ["glpat-"], "entropy": 4 },
  { "id": "gitlab-ptt", "source": "glptt-[0-9a-f]{40}", "flags": "", "keywords": ["glptt-"], "entropy": 3 },
  { "id": "gitlab-rrt", "source": "GR1348941[\\w\\-]{20}", "flags": "", "keywords": ["gr1348941"], "entropy": 3 },
  { "id": "gitlab-runner-authentication-token", "source": "glrt-[0-9a-zA-Z_\\-]{20}", "flags": "", "keywords": ["glrt-"], "entropy": 3 },
  { "id": "gitlab-runner-authentication-token-routable", "source": "\\bglrt-t\\d_[0-9a-zA-Z_\\-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b", "flags": "", "keywords": ["glrt-"], "entropy": 4 },
  { "id": "gitlab-scim-token", "source": "glsoat-[0-9a-zA-Z_\\-]{20}", "flags": "", "keywords": ["glsoat-"], "entropy": 3 },
  { "id": "gitlab-session-cookie", "source": "_gitlab_session=[0-9a-z]{32}", "flags": "", "keywords": ["_gitlab_session="], "entropy": 3 },
  { "id": "gitter-access-token", "source": `(?:gitter)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9_\\-]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["gitter"] },
  { "id": "gocardless-api-token", "source": `(?:[gG][oO][cC][aA][rR][dD][lL][eE][sS][sS])(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([lL][iI][vV][eE]_[a-z0-9\\-_=A-Z]{40})(?:[\`'"\\s;]|\\\\[nrNR]|$)`, "flags": "", "namePrefix": true, "keywords": ["live_", "gocardless"] },
  { "id": "grafana-api-key", "source": "\\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,3})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "i", "keywords": ["eyjrijoi"], "entropy": 3 },
  { "id": "grafana-cloud-api-token", "source": "\\b(glc_[A-Za-z0-9+/]{32,400}={0,3})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "i", "keywords": ["glc_"], "entropy": 3 },
  { "id": "grafana-service-account-token", "source": "\\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "i", "keywords": ["glsa_"], "entropy": 3 },
  { "id": "harness-api-key", "source": "(?:pat|sat)\\.[a-zA-Z0-9_\\-]{22}\\.[a-zA-Z0-9]{24}\\.[a-zA-Z0-9]{20}", "flags": "", "keywords": ["pat.", "sat."] },
  { "id": "hashicorp-tf-api-token", "source": "[a-z0-9A-Z]{14}\\.(?:atlasv1)\\.[a-z0-9\\-_=A-Z]{60,70}", "flags": "", "keywords": ["atlasv1"], "entropy": 3.5 },
  { "id": "heroku-api-key", "source": `(?:heroku)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["heroku"] },
  { "id": "heroku-api-key-v2", "source": "\\b((HRKU-AA[0-9a-zA-Z_\\-]{58}))(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["hrku-aa"], "entropy": 4 },
  { "id": "hubspot-api-key", "source": `(?:hubspot)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["hubspot"] },
  { "id": "huggingface-access-token", "source": "\\b(hf_(?:[a-zA-Z]{34}))(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["hf_"], "entropy": 2 },
  { "id": "huggingface-organization-api-token", "source": "\\b(api_org_(?:[a-zA-Z]{34}))(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["api_org_"], "entropy": 2 },
  { "id": "infracost-api-token", "source": "\\b(ico-[a-zA-Z0-9]{32})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["ico-"], "entropy": 3 },
  { "id": "intercom-api-key", "source": `(?:intercom)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{60})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["intercom"] },
  { "id": "intra42-client-secret", "source": "\\b(s-s4t2(?:ud|af)-[abcdef0123456789ABCDEF]{64})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["intra", "s-s4t2ud-", "s-s4t2af-"], "entropy": 3 },
  { "id": "jfrog-api-key", "source": `(?:jfrog|artifactory|bintray|xray)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{73})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["jfrog", "artifactory", "bintray", "xray"] },
  { "id": "jfrog-identity-token", "source": `(?:jfrog|artifactory|bintray|xray)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["jfrog", "artifactory", "bintray", "xray"] },
  { "id": "jwt", "source": "\\b(ey[a-zA-Z0-9]{17,}\\.ey[a-zA-Z0-9/\\\\_\\-]{17,}\\.(?:[a-zA-Z0-9/\\\\_\\-]{10,}={0,2})?)(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["ey"], "entropy": 3 },
  { "id": "jwt-base64", "source": "\\bZXlK(?:(?<alg>aGJHY2lPaU)|(?<apu>aGNIVWlPaU)|(?<apv>aGNIWWlPaU)|(?<aud>aGRXUWlPaU)|(?<b64>aU5qUWlP)|(?<crit>amNtbDBJanBi)|(?<cty>amRIa2lPaU)|(?<epk>bGNHc2lPbn)|(?<enc>bGJtTWlPaU)|(?<jku>cWEzVWlPaU)|(?<jwk>cWQyc2lPb)|(?<iss>cGMzTWlPaU)|(?<iv>cGRpSTZJ)|(?<kid>cmFXUWlP)|(?<key_ops>clpYbGZiM0J6SWpwY)|(?<kty>cmRIa2lPaUp)|(?<nonce>dWIyNWpaU0k2)|(?<p2c>d01tTWlP)|(?<p2s>d01uTWlPaU)|(?<ppt>d2NIUWlPaU)|(?<sub>emRXSWlPaU)|(?<svt>emRuUWlP)|(?<tag>MFlXY2lPaU)|(?<typ>MGVYQWlPaUp)|(?<url>MWNtd2l)|(?<use>MWMyVWlPaUp)|(?<ver>MlpYSWlPaU)|(?<version>MlpYSnphVzl1SWpv)|(?<x>NElqb2)|(?<x5c>NE5XTWlP)|(?<x5t>NE5YUWlPaU)|(?<x5ts256>NE5YUWpVekkxTmlJNkl)|(?<x5u>NE5YVWlPaU)|(?<zip>NmFYQWlPaU))[a-zA-Z0-9/\\\\_+\\-\\x0d\\x0a]{40,}={0,2}", "flags": "", "keywords": ["zxlk"], "entropy": 2 },
  { "id": "kraken-access-token", "source": `(?:kraken)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9/=_+\\-]{80,90})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["kraken"] },
  { "id": "kubernetes-secret-yaml", "source": `(?:\\b[kK][iI][nN][dD]:[ \\x09]*["']?\\b[sS][eE][cC][rR][eE][tT]\\b["']?(?:[\\s\\S]){0,200}?\\b[dD][aA][tT][aA]:(?:[\\s\\S]){0,100}?\\s+([\\w.\\-]+:(?:[ \\x09]*(?:\\||>[\\-+]?)\\s+)?[ \\x09]*(?:["']?[a-z0-9+/A-Z]{10,}={0,3}["']?|\\{\\{[ \\x09\\w"|$:=,.\\-]+}}|""|''))|\\b[dD][aA][tT][aA]:(?:[\\s\\S]){0,100}?\\s+([\\w.\\-]+:(?:[ \\x09]*(?:\\||>[\\-+]?)\\s+)?[ \\x09]*(?:["']?[a-z0-9+/A-Z]{10,}={0,3}["']?|\\{\\{[ \\x09\\w"|$:=,.\\-]+}}|""|''))(?:[\\s\\S]){0,200}?\\b[kK][iI][nN][dD]:[ \\x09]*["']?\\b[sS][eE][cC][rR][eE][tT]\\b["']?)`, "flags": "", "keywords": ["secret"], "allowlists": [{ "target": "secret", "regexes": [{ "source": `[\\w.\\-]+:(?:[ \\x09]*(?:\\||>[\\-+]?)\\s+)?[ \\x09]*(?:\\{\\{[ \\x09\\w"|$:=,.\\-]+}}|""|'')`, "flags": "" }], "stopwords": [], "all": false }, { "target": "match", "regexes": [{ "source": "(kind:(?:[\\s\\S])+\\x0a---\\x0a(?:[\\s\\S])+\\bdata:|data:(?:[\\s\\S])+\\x0a---\\x0a(?:[\\s\\S])+\\bkind:)", "flags": "" }], "stopwords": [], "all": false }] },
  { "id": "kucoin-access-token", "source": `(?:kucoin)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{24})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["kucoin"] },
  { "id": "kucoin-secret-key", "source": `(?:kucoin)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["kucoin"] },
  { "id": "launchdarkly-access-token", "source": `(?:launchdarkly)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["launchdarkly"] },
  { "id": "linear-api-key", "source": "lin_api_[a-z0-9A-Z]{40}", "flags": "", "keywords": ["lin_api_"], "entropy": 2 },
  { "id": "linear-client-secret", "source": `(?:linear)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["linear"], "entropy": 2 },
  { "id": "linkedin-client-id", "source": `(?:linked[_\\-]?in)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{14})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["linkedin", "linked_in", "linked-in"], "entropy": 2 },
  { "id": "linkedin-client-secret", "source": `(?:linked[_\\-]?in)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{16})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["linkedin", "linked_in", "linked-in"], "entropy": 2 },
  { "id": "lob-api-key", "source": `(?:lob)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}((live|test)_[a-f0-9]{35})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["test_", "live_"] },
  { "id": "lob-pub-api-key", "source": `(?:lob)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}((test|live)_pub_[a-f0-9]{31})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["test_pub", "live_pub", "_pub"] },
  { "id": "looker-client-id", "source": `(?:looker)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{20})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["looker"] },
  { "id": "looker-client-secret", "source": `(?:looker)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{24})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["looker"] },
  { "id": "mailchimp-api-key", "source": `(?:MailchimpSDK[^\\n]initialize|mailchimp)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{32}-us\\d\\d)(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["mailchimp"] },
  { "id": "mailgun-private-api-token", "source": `(?:mailgun)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(key-[a-f0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["mailgun"] },
  { "id": "mailgun-pub-key", "source": `(?:mailgun)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(pubkey-[a-f0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["mailgun"] },
  { "id": "mailgun-signing-key", "source": `(?:mailgun)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["mailgun"] },
  { "id": "mapbox-api-token", "source": `(?:mapbox)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(pk\\.[a-z0-9]{60}\\.[a-z0-9]{22})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["mapbox"] },
  { "id": "mattermost-access-token", "source": `(?:mattermost)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{26})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["mattermost"] },
  { "id": "maxmind-license-key", "source": "\\b([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["_mmk"], "entropy": 4 },
  { "id": "messagebird-api-token", "source": `(?:message[_\\-]?bird)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{25})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["messagebird", "message-bird", "message_bird"] },
  { "id": "messagebird-client-id", "source": `(?:message[_\\-]?bird)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["messagebird", "message-bird", "message_bird"] },
  { "id": "microsoft-teams-webhook", "source": "https://[a-z0-9]+\\.webhook\\.office\\.com/webhookb2/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}", "flags": "", "keywords": ["webhook.office.com", "webhookb2", "incomingwebhook"] },
  { "id": "netlify-access-token", "source": `(?:netlify)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{40,46})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["netlify"] },
  { "id": "new-relic-browser-api-token", "source": `(?:new-relic|newrelic|new_relic)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(NRJS-[a-f0-9]{19})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["nrjs-"] },
  { "id": "new-relic-insert-key", "source": `(?:new-relic|newrelic|new_relic)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(NRII-[a-z0-9\\-]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["nrii-"] },
  { "id": "new-relic-user-api-id", "source": `(?:new-relic|newrelic|new_relic)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["new-relic", "newrelic", "new_relic"] },
  { "id": "new-relic-user-api-key", "source": `(?:new-relic|newrelic|new_relic)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(NRAK-[a-z0-9]{27})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["nrak"] },
  { "id": "notion-api-token", "source": "\\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["ntn_"], "entropy": 4 },
  { "id": "npm-access-token", "source": "\\b(npm_[a-z0-9]{36})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "i", "keywords": ["npm_"], "entropy": 2 },
  { "id": "nuget-config-password", "source": '<add key="(?:(?:ClearText)?Password)"\\s*value="([^\\n]{8,})"\\s*/>', "flags": "i", "keywords": ["<add key="], "entropy": 1, "allowlists": [{ "target": "secret", "regexes": [{ "source": "33f!!lloppa", "flags": "" }, { "source": "hal\\+9ooo_da!sY", "flags": "" }, { "source": "^%\\S[^\\n]*%$", "flags": "" }], "stopwords": [], "all": false }] },
  { "id": "nytimes-access-token", "source": `(?:nytimes|new-york-times,|newyorktimes)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9=_\\-]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["nytimes", "new-york-times", "newyorktimes"] },
  { "id": "octopus-deploy-api-key", "source": "\\b(API-[A-Z0-9]{26})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["api-"], "entropy": 3 },
  { "id": "okta-access-token", "source": `(?:(?:(?:[Oo]kta|OKTA))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(00[\\w=\\-]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "", "namePrefix": true, "keywords": ["okta"], "entropy": 4 },
  { "id": "openai-api-key", "source": "\\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_\\-]{74}|[A-Za-z0-9_\\-]{58})T3BlbkFJ(?:[A-Za-z0-9_\\-]{74}|[A-Za-z0-9_\\-]{58})\\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["t3blbkfj"], "entropy": 3 },
  { "id": "openshift-user-token", "source": "\\b(sha256~[\\w\\-]{43})(?:[^\\w\\-]|$)", "flags": "", "keywords": ["sha256~"], "entropy": 3.5 },
  { "id": "perplexity-api-key", "source": "\\b(pplx-[a-zA-Z0-9]{48})(?:[`'\"\\s;]|\\\\[nr]|$|\\b)", "flags": "", "keywords": ["pplx-"], "entropy": 4 },
  { "id": "plaid-api-token", "source": `(?:plaid)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["plaid"] },
  { "id": "plaid-client-id", "source": `(?:plaid)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{24})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["plaid"], "entropy": 3.5 },
  { "id": "plaid-secret-key", "source": `(?:plaid)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{30})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["plaid"], "entropy": 3.5 },
  { "id": "planetscale-api-token", "source": "\\b(pscale_tkn_[\\w=.\\-]{32,64})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["pscale_tkn_"], "entropy": 3 },
  { "id": "planetscale-oauth-token", "source": "\\b(pscale_oauth_[\\w=.\\-]{32,64})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["pscale_oauth_"], "entropy": 3 },
  { "id": "planetscale-password", "source": "\\b([pP][sS][cC][aA][lL][eE]_[pP][wW]_[\\w=.\\-]{32,64})(?:[`'\"\\s;]|\\\\[nrNR]|$)", "flags": "", "keywords": ["pscale_pw_"], "entropy": 3 },
  { "id": "postman-api-token", "source": "\\b(PMAK-[a-f0-9A-F]{24}\\-[a-f0-9A-F]{34})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["pmak-"], "entropy": 3 },
  { "id": "prefect-api-token", "source": "\\b(pnu_[a-zA-Z0-9]{36})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["pnu_"], "entropy": 2 },
  { "id": "private-key", "source": "-----BEGIN[ A-Z0-9_\\-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\\s\\S\\-]{64,}?KEY(?: BLOCK)?-----", "flags": "i", "keywords": ["-----begin"] },
  { "id": "privateai-api-token", "source": `(?:(?:[pP][rR][iI][vV][aA][tT][eE][_\\-]?[aA][iI])(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{32})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "", "namePrefix": true, "keywords": ["privateai", "private_ai", "private-ai"], "entropy": 3 },
  { "id": "pulumi-api-token", "source": "\\b(pul-[a-f0-9]{40})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["pul-"], "entropy": 2 },
  { "id": "pypi-upload-token", "source": "pypi-AgEIcHlwaS5vcmc[\\w\\-]{50,1000}", "flags": "", "keywords": ["pypi-ageichlwas5vcmc"], "entropy": 3 },
  { "id": "rapidapi-access-token", "source": `(?:rapidapi)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9_\\-]{50})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["rapidapi"] },
  { "id": "readme-api-token", "source": "\\b(rdme_[a-z0-9]{70})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["rdme_"], "entropy": 2 },
  { "id": "rubygems-api-token", "source": "\\b(rubygems_[a-f0-9]{48})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["rubygems_"], "entropy": 2 },
  { "id": "scalingo-api-token", "source": "\\b(tk-us-[\\w\\-]{48})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["tk-us-"], "entropy": 2 },
  { "id": "sendbird-access-id", "source": `(?:sendbird)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["sendbird"] },
  { "id": "sendbird-access-token", "source": `(?:sendbird)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["sendbird"] },
  { "id": "sendgrid-api-token", "source": "\\b(SG\\.[a-z0-9=_\\-.A-Z]{66})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sg."], "entropy": 2 },
  { "id": "sendinblue-api-token", "source": "\\b(xkeysib-[a-f0-9]{64}\\-[a-z0-9A-Z]{16})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["xkeysib-"], "entropy": 2 },
  { "id": "sentry-access-token", "source": `(?:sentry)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{64})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["sentry"], "entropy": 3 },
  { "id": "sentry-org-token", "source": "\\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?:[^a-zA-Z0-9+/]|$)", "flags": "", "keywords": ["sntrys_eyjpyxqio"], "entropy": 4.5 },
  { "id": "sentry-user-token", "source": "\\b(sntryu_[a-f0-9]{64})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sntryu_"], "entropy": 3.5 },
  { "id": "settlemint-application-access-token", "source": "\\b(sm_aat_[a-zA-Z0-9]{16})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sm_aat"], "entropy": 3 },
  { "id": "settlemint-personal-access-token", "source": "\\b(sm_pat_[a-zA-Z0-9]{16})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sm_pat"], "entropy": 3 },
  { "id": "settlemint-service-access-token", "source": "\\b(sm_sat_[a-zA-Z0-9]{16})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sm_sat"], "entropy": 3 },
  { "id": "shippo-api-token", "source": "\\b(shippo_(?:live|test)_[a-fA-F0-9]{40})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["shippo_"], "entropy": 2 },
  { "id": "shopify-access-token", "source": "shpat_[a-fA-F0-9]{32}", "flags": "", "keywords": ["shpat_"], "entropy": 2 },
  { "id": "shopify-custom-access-token", "source": "shpca_[a-fA-F0-9]{32}", "flags": "", "keywords": ["shpca_"], "entropy": 2 },
  { "id": "shopify-private-app-access-token", "source": "shppa_[a-fA-F0-9]{32}", "flags": "", "keywords": ["shppa_"], "entropy": 2 },
  { "id": "shopify-shared-secret", "source": "shpss_[a-fA-F0-9]{32}", "flags": "", "keywords": ["shpss_"], "entropy": 2 },
  { "id": "sidekiq-secret", "source": `(?:BUNDLE_ENTERPRISE__CONTRIBSYS__COM|BUNDLE_GEMS__CONTRIBSYS__COM)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-f0-9]{8}:[a-f0-9]{8})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["bundle_enterprise__contribsys__com", "bundle_gems__contribsys__com"] },
  { "id": "sidekiq-sensitive-url", "source": "\\bhttps?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems[^\\n]contribsys[^\\n]com|enterprise[^\\n]contribsys[^\\n]com)(?:[/|#|?|:]|$)", "flags": "i", "keywords": ["gems.contribsys.com", "enterprise.contribsys.com"] },
  { "id": "slack-app-token", "source": "xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+", "flags": "i", "keywords": ["xapp"], "entropy": 2 },
  { "id": "slack-bot-token", "source": "xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9\\-]*", "flags": "", "keywords": ["xoxb"], "entropy": 3 },
  { "id": "slack-config-access-token", "source": "xoxe[^\\n]xox[bp]-\\d-[A-Z0-9]{163,166}", "flags": "i", "keywords": ["xoxe.xoxb-", "xoxe.xoxp-"], "entropy": 2 },
  { "id": "slack-config-refresh-token", "source": "xoxe-\\d-[A-Z0-9]{146}", "flags": "i", "keywords": ["xoxe-"], "entropy": 2 },
  { "id": "slack-legacy-bot-token", "source": "xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}", "flags": "", "keywords": ["xoxb"], "entropy": 2 },
  { "id": "slack-legacy-token", "source": "xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+", "flags": "", "keywords": ["xoxo", "xoxs"], "entropy": 2 },
  { "id": "slack-legacy-workspace-token", "source": "xox[ar]-(?:\\d-)?[0-9a-zA-Z]{8,48}", "flags": "", "keywords": ["xoxa", "xoxr"], "entropy": 2 },
  { "id": "slack-user-token", "source": "xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9\\-]{28,34}", "flags": "", "keywords": ["xoxp-", "xoxe-"], "entropy": 2 },
  { "id": "slack-webhook-url", "source": "(?:https?://)?hooks[^\\n]slack[^\\n]com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}", "flags": "", "keywords": ["hooks.slack.com"] },
  { "id": "snyk-api-token", "source": `(?:snyk[_.\\-]?(?:(?:api|oauth)[_.\\-]?)?(?:key|token))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["snyk"] },
  { "id": "sonar-api-token", "source": `(?:sonar[_.\\-]?(login|token))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}((?:squ_|sqp_|sqa_)?[a-z0-9=_\\-]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["sonar"], "secretGroup": 2 },
  { "id": "sourcegraph-access-token", "source": "\\b(\\b(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}|[a-fA-F0-9]{40})\\b)(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "i", "keywords": ["sgp_", "sourcegraph"], "entropy": 3 },
  { "id": "square-access-token", "source": "\\b((?:EAAA|sq0atp-)[\\w\\-]{22,60})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sq0atp-", "eaaa"], "entropy": 2 },
  { "id": "squarespace-access-token", "source": `(?:squarespace)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["squarespace"] },
  { "id": "stripe-access-token", "source": "\\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod"], "entropy": 2 },
  { "id": "sumologic-access-id", "source": `(?:(?:(?:[Ss]umo|SUMO))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(su[a-zA-Z0-9]{12})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "", "namePrefix": true, "keywords": ["sumo"], "entropy": 3 },
  { "id": "sumologic-access-token", "source": `(?:(?:[Ss]umo|SUMO))(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9A-Z]{64})(?:[\`'"\\s;]|\\\\[nrNR]|$)`, "flags": "", "namePrefix": true, "keywords": ["sumo"], "entropy": 3 },
  { "id": "telegram-bot-api-token", "source": `(?:[tT][eE][lL][eE][gG][rR])(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9]{5,16}:(?:A)[a-z0-9_\\-A-Z]{34})(?:[\`'"\\s;]|\\\\[nrNR]|$)`, "flags": "", "namePrefix": true, "keywords": ["telegr"] },
  { "id": "travisci-access-token", "source": `(?:travis)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{22})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["travis"] },
  { "id": "twilio-api-key", "source": "SK[0-9a-fA-F]{32}", "flags": "", "keywords": ["sk"], "entropy": 3 },
  { "id": "twitch-api-token", "source": `(?:twitch)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{30})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["twitch"] },
  { "id": "twitter-access-secret", "source": `(?:twitter)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{45})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["twitter"] },
  { "id": "twitter-access-token", "source": `(?:twitter)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([0-9]{15,25}-[a-zA-Z0-9]{20,40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["twitter"] },
  { "id": "twitter-api-key", "source": `(?:twitter)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{25})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["twitter"] },
  { "id": "twitter-api-secret", "source": `(?:twitter)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{50})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["twitter"] },
  { "id": "twitter-bearer-token", "source": `(?:twitter)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(A{22}[a-zA-Z0-9%]{80,100})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["twitter"] },
  { "id": "typeform-api-token", "source": `(?:typeform)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(tfp_[a-z0-9\\-_.=]{59})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["tfp_"] },
  { "id": "vault-batch-token", "source": "\\b(hvb\\.[\\w\\-]{138,300})(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["hvb."], "entropy": 4 },
  { "id": "vault-service-token", "source": "\\b((?:hvs\\.[\\w\\-]{90,120}|s\\.(?:[a-z0-9A-Z]{24})))(?:[`'\"\\s;]|\\\\[nr]|$)", "flags": "", "keywords": ["hvs.", "s."], "entropy": 3.5, "allowlists": [{ "target": "secret", "regexes": [{ "source": "s\\.[A-Za-z]{24}", "flags": "" }], "stopwords": [], "all": false }] },
  { "id": "yandex-access-token", "source": `(?:yandex)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(t1\\.[A-Z0-9a-z_\\-]+[=]{0,2}\\.[A-Z0-9a-z_\\-]{86}[=]{0,2})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["yandex"] },
  { "id": "yandex-api-key", "source": `(?:yandex)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(AQVN[A-Za-z0-9_\\-]{35,38})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["yandex"] },
  { "id": "yandex-aws-access-token", "source": `(?:yandex)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}(YC[a-zA-Z0-9_\\-]{38})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["yandex"] },
  { "id": "zendesk-secret-key", "source": `(?:zendesk)(?:[ \\x09\\w.\\-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\`'"\\s=]{0,5}([a-z0-9]{40})(?:[\`'"\\s;]|\\\\[nr]|$)`, "flags": "i", "namePrefix": true, "keywords": ["zendesk"] }
];

// packages/contract/src/redaction/redact.ts
var redactionMarker = (rule) => `[redacted:${rule}]`;
var GITLEAKS_GENERIC = "generic-api-key";
var rules;
function allRules() {
  rules ??= [
    ...CAIRN_RULES.map((r) => ({
      id: r.id,
      keywords: r.keywords,
      source: { source: r.pattern.source, flags: r.pattern.flags },
      secretGroup: r.secretGroup,
      allowlists: [],
      validate: r.validate,
      rank: r.generic ? 2 : 0
    })),
    ...GITLEAKS_RULES.map((r) => ({
      id: r.id,
      keywords: r.keywords,
      source: r,
      secretGroup: r.secretGroup,
      entropy: r.entropy,
      allowlists: [GITLEAKS_GLOBAL_ALLOWLIST, ...r.allowlists ?? []],
      namePrefix: r.namePrefix,
      // gitleaks' catch-all lets whitespace, line breaks included, separate a name from its value.
      sameLine: r.id === GITLEAKS_GENERIC,
      rank: r.id === GITLEAKS_GENERIC ? 2 : 1
    }))
  ];
  return rules;
}
var compiled = /* @__PURE__ */ new WeakMap();
function regex(source, scan) {
  let re = compiled.get(source);
  if (!re) {
    re = new RegExp(source.source, `${source.flags}${scan ? "gd" : ""}`);
    compiled.set(source, re);
  }
  return re;
}
var MARKER = /^["']?\[redacted:[\w-]+\]["']?$/;
function redact(input) {
  const lower = input.toLowerCase();
  const spans = [];
  for (const rule of allRules()) {
    if (rule.keywords.length > 0 && !rule.keywords.some((k) => lower.includes(k))) continue;
    const re = regex(rule.source, true);
    re.lastIndex = 0;
    for (let m = re.exec(input); m; m = re.exec(input)) {
      if (m[0] === "") {
        re.lastIndex++;
        continue;
      }
      const [start, end] = secretRange(m, rule.secretGroup);
      if (start === end) continue;
      if (rule.sameLine && hasLineBreak(input, m.index, start)) {
        re.lastIndex = m.index + 1;
        continue;
      }
      const secret = input.slice(start, end);
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
function mergeFindings(findings) {
  const byRule = /* @__PURE__ */ new Map();
  for (const f of findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + f.count);
  return [...byRule].map(([rule, count]) => ({ rule, count }));
}
function secretRange(m, group) {
  const indices = m.indices;
  if (group !== void 0) return group === 0 ? indices[0] : indices[group] ?? [0, 0];
  for (let g = 1; g < indices.length; g++) {
    const range = indices[g];
    if (range && range[1] > range[0]) return range;
  }
  return indices[0];
}
function isAllowed(a, secret, match, line) {
  const target = a.target === "match" ? match : a.target === "line" ? line : secret;
  const checks = [];
  if (a.regexes.length > 0) checks.push(a.regexes.some((r) => regex(r, false).test(target)));
  if (a.stopwords.length > 0) {
    const lowerSecret = secret.toLowerCase();
    checks.push(a.stopwords.some((w) => lowerSecret.includes(w)));
  }
  return a.all ? checks.length > 0 && checks.every(Boolean) : checks.some(Boolean);
}
function widenOverName(text, start) {
  let from = start;
  while (from > 0 && start - from < 50 && /[\w.-]/.test(text[from - 1])) from--;
  return from;
}
function hasLineBreak(text, from, to) {
  const at = text.indexOf("\n", from);
  return at !== -1 && at < to;
}
function lineAround(text, start, end) {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  const to = text.indexOf("\n", end);
  return text.slice(from, to === -1 ? text.length : to);
}
function apply(input, spans) {
  if (spans.length === 0) return { text: input, findings: [] };
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.rank - b.rank);
  const merged = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      if (span.rank < last.rank) Object.assign(last, { rule: span.rule, rank: span.rank });
    } else {
      merged.push({ ...span });
    }
  }
  let text = "";
  let at = 0;
  const counts = [];
  for (const span of merged) {
    text += input.slice(at, span.start) + redactionMarker(span.rule);
    at = span.end;
    counts.push({ rule: span.rule, count: 1 });
  }
  return { text: text + input.slice(at), findings: mergeFindings(counts) };
}

// packages/capture/src/turn.ts
var MAX_TURN_TEXT = CAPTURE_LIMITS.maxTurnChars;
function buildTurn(client2, event2, input, at) {
  const text = redact(input.text).text.slice(0, MAX_TURN_TEXT);
  const iso = at.toISOString();
  const scope = input.turnId ?? (input.sessionId ? "" : iso);
  const id = createHash("sha256").update(JSON.stringify([client2, input.sessionId ?? "", scope, event2, text])).digest("hex");
  const project = input.cwd ? basename2(input.cwd) : void 0;
  return {
    id,
    role: input.role,
    text,
    client: client2,
    ...input.sessionId && { sessionId: input.sessionId },
    ...project && { project },
    at: iso
  };
}

// packages/capture/src/capture.ts
var MAX_TURNS_PER_REQUEST = CAPTURE_LIMITS.maxTurnsPerRequest;
var MAX_BATCH_BYTES = CAPTURE_LIMITS.maxBodyBytes - 48 * 1024;
function keepUnsent(run2) {
  const turns = [...run2.inFlight ?? []];
  if (turns.length === 0) return;
  run2.inFlight?.clear();
  appendToSpool(run2.paths, turns);
  logReason(
    run2.paths,
    `${run2.client ?? "?"} ${run2.event ?? "?"}`,
    `spooled ${turns.length} turn: the hook's time ran out`
  );
}
async function runCapture(run2) {
  const context = `${run2.client ?? "?"} ${run2.event ?? "?"}`;
  try {
    await captureTurn(run2, context);
  } finally {
    run2.sent?.();
  }
}
async function captureTurn(run2, context) {
  try {
    if (!isOneOf(CLIENT_IDS, run2.client) || !isOneOf(EVENTS, run2.event)) {
      logReason(run2.paths, context, `usage: cairn-capture <${CLIENT_IDS.join("|")}> <${EVENTS.join("|")}>`);
      return;
    }
    if (run2.event === "edit") return;
    const reading = readHookInput(run2.client, run2.event, run2.stdin, run2.env, run2.cwd);
    if (!reading.ok && reading.reason) logReason(run2.paths, context, reading.reason);
    const loaded = loadCaptureConfig(run2.env, run2.paths);
    if (!loaded.ok) {
      if (reading.ok) logReason(run2.paths, context, loaded.reason);
      return;
    }
    if (reading.ok) {
      const turn = buildTurn(run2.client, run2.event, reading.value, run2.now);
      if (!await sendCurrent(loaded.config, turn, run2, context)) return;
    }
    run2.sent?.();
    await drainSpool(loaded.config, run2, context);
  } catch (error) {
    logReason(run2.paths, context, `internal error: ${error?.name ?? "unknown"}`);
  }
}
async function sendCurrent(config, turn, run2, context) {
  run2.inFlight?.add(turn);
  const outcome = await postTurns(config, [turn], run2.signal);
  if (run2.inFlight && !run2.inFlight.delete(turn)) return false;
  if (outcome.kind === "acknowledged") return true;
  if (outcome.kind === "retry") {
    appendToSpool(run2.paths, [turn]);
    logReason(run2.paths, context, `spooled 1 turn: ${outcome.reason}`);
  } else {
    logReason(run2.paths, context, `dropped 1 turn: ${outcome.reason}`);
  }
  return false;
}
async function drainSpool(config, run2, context) {
  const claim = claimSpool(run2.paths, run2.now.getTime());
  if (!claim) return;
  const acknowledged = /* @__PURE__ */ new Set();
  try {
    const queue = batches(claim.turns);
    while (queue.length > 0 && !run2.signal.aborted) {
      const batch = queue.shift();
      const outcome = await postTurns(config, batch, run2.signal);
      if (outcome.kind === "acknowledged") {
        for (const t of batch) acknowledged.add(t.id);
      } else if (outcome.kind === "retry" || outcome.status === 401 || outcome.status === 403) {
        logReason(run2.paths, context, `spool kept: ${outcome.reason}`);
        break;
      } else if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        queue.unshift(batch.slice(0, half), batch.slice(half));
      } else {
        acknowledged.add(batch[0].id);
        logReason(run2.paths, context, `dropped 1 spooled turn: ${outcome.reason}`);
      }
    }
  } finally {
    settleClaim(run2.paths, claim, acknowledged);
  }
}
function batches(turns) {
  const out = [];
  let current = [];
  let bytes = 0;
  for (const turn of turns) {
    const size = Buffer.byteLength(JSON.stringify(turn));
    if (current.length > 0 && (current.length >= MAX_TURNS_PER_REQUEST || bytes + size > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(turn);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}
function isOneOf(values, value) {
  return values.includes(value ?? "");
}

// packages/capture/src/given.ts
import { createHash as createHash2 } from "node:crypto";
import { readFileSync as readFileSync3, renameSync as renameSync3, writeFileSync } from "node:fs";
var MAX_SESSIONS = 50;
var SESSION_TTL_MS = 24 * 60 * 60 * 1e3;
var MAX_IDS = 500;
function givenTo(paths2, session) {
  return new Set(read(paths2).sessions[key(session)]?.ids ?? []);
}
function recordGiven(paths2, session, ids, now) {
  const file = read(paths2);
  const k = key(session);
  const merged = [.../* @__PURE__ */ new Set([...file.sessions[k]?.ids ?? [], ...ids])].slice(-MAX_IDS);
  file.sessions[k] = { at: now, ids: merged };
  const kept = Object.entries(file.sessions).filter(([, s]) => now - s.at < SESSION_TTL_MS).sort((a, b) => b[1].at - a[1].at).slice(0, MAX_SESSIONS);
  ensurePrivateDir(paths2.dir);
  const temp = `${paths2.given}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  writeFileSync(temp, JSON.stringify({ sessions: Object.fromEntries(kept) }), { mode: 384 });
  renameSync3(temp, paths2.given);
}
function read(paths2) {
  try {
    const parsed = JSON.parse(readFileSync3(paths2.given, "utf8"));
    if (parsed && typeof parsed.sessions === "object" && parsed.sessions && !Array.isArray(parsed.sessions)) {
      for (const [k, s] of Object.entries(parsed.sessions))
        if (!s || typeof s.at !== "number" || !Array.isArray(s.ids)) delete parsed.sessions[k];
      return parsed;
    }
  } catch {
  }
  return { sessions: {} };
}
function key(session) {
  return createHash2("sha256").update(session).digest("hex").slice(0, 32);
}

// packages/capture/src/guidance-call.ts
var MAX_ANSWER_BYTES2 = 1024 * 1024;
var USER_AGENT = `${INSTALLER_USER_AGENT} ${CAPTURE_USER_AGENT}`;
async function callGetGuidance(config, args, signal2) {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_guidance", arguments: args }
  });
  const headers = {
    Authorization: `Bearer ${config.apiKey}`,
    "User-Agent": USER_AGENT,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18"
  };
  let answer;
  try {
    answer = await postJson(new URL(mcpEndpoint(config.url)), body, headers, signal2, MAX_ANSWER_BYTES2);
  } catch (error) {
    return { ok: false, reason: signal2.aborted ? "timed out" : `unreachable (${codeOf(error)})` };
  }
  if (answer.status < 200 || answer.status >= 300) return { ok: false, reason: `HTTP ${answer.status}` };
  const message = jsonRpcMessage(answer.text);
  if (message?.error)
    return { ok: false, reason: `JSON-RPC error ${typeof message.error.code === "number" ? message.error.code : "?"}` };
  if (message?.result?.isError) return { ok: false, reason: "get_guidance refused the call" };
  const text = message?.result?.content?.find((c) => c.type === "text")?.text;
  const structured = message?.result?.structuredContent;
  if (typeof text !== "string" || !structured || !Array.isArray(structured.levels))
    return { ok: false, reason: "not a get_guidance answer" };
  return {
    ok: true,
    answer: {
      text,
      levels: structured.levels.filter((l) => Array.isArray(l?.items)),
      conflicts: Array.isArray(structured.conflicts) ? structured.conflicts : [],
      omitted: structured.omitted ?? null,
      mayAlsoApply: Array.isArray(structured.mayAlsoApply) ? structured.mayAlsoApply.filter((p) => typeof p?.id === "string") : []
    }
  };
}
function mcpEndpoint(url) {
  return `${url.replace(/\/+$/, "").replace(/\/mcp$/, "")}/mcp`;
}
function jsonRpcMessage(text) {
  const direct = parseJson(text);
  if (direct !== void 0) return direct;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const event2 = parseJson(line.slice(5).trim());
    if (event2 && (event2.result !== void 0 || event2.error !== void 0)) return event2;
  }
  return void 0;
}

// packages/capture/src/guidance-input.ts
var MAX_FILES = 20;
function readGuidanceInput(client2, event2, stdin2, env, processCwd) {
  if (client2 === "kiro-ide")
    return event2 === "prompt" && env.USER_PROMPT?.trim() ? { cwd: processCwd, prompt: env.USER_PROMPT } : null;
  let input;
  try {
    const parsed = JSON.parse(stdin2);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    input = parsed;
  } catch {
    return null;
  }
  const base = {
    ...str2(input.session_id) && { sessionId: str2(input.session_id) },
    cwd: str2(input.cwd) ?? processCwd
  };
  if (event2 === "prompt") {
    const prompt = str2(input.prompt);
    return prompt?.trim() ? { ...base, prompt } : null;
  }
  const files = editedFiles(input.tool_input);
  return files.length ? { ...base, files } : null;
}
function editedFiles(toolInput) {
  const files = [];
  const add = (value) => {
    if (typeof value === "string" && value.trim() && !files.includes(value.trim())) files.push(value.trim());
  };
  if (typeof toolInput === "string") patchFiles(toolInput).forEach(add);
  else if (toolInput && typeof toolInput === "object") {
    const t = toolInput;
    add(t.file_path);
    add(t.path);
    for (const value of [t.command, t.input, t.patch]) {
      for (const text of Array.isArray(value) ? value : [value])
        if (typeof text === "string") patchFiles(text).forEach(add);
    }
  }
  return files.slice(0, MAX_FILES);
}
function patchFiles(text) {
  return [
    ...text.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm),
    ...text.matchAll(/^\*\*\* Move to: (.+)$/gm)
  ].map((m) => m[1].trim());
}
function str2(value) {
  return typeof value === "string" && value ? value : void 0;
}

// packages/capture/src/project.ts
import { readFileSync as readFileSync4, statSync as statSync4 } from "node:fs";
import { basename as basename3, dirname as dirname2, isAbsolute, join as join2, relative, resolve, sep } from "node:path";
var MAX_DEPTH = 40;
function repositoryOf(cwd) {
  let dir = resolve(cwd);
  for (let i = 0; i < MAX_DEPTH; i++) {
    const dotGit = join2(dir, ".git");
    const gitDir = gitDirOf(dotGit, dir);
    if (gitDir) return { root: dir, project: remoteName(gitDir) ?? basename3(dir) };
    const parent = dirname2(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return { root: resolve(cwd), project: basename3(resolve(cwd)) };
}
function repositoryPath(repo, cwd, file) {
  const absolute = isAbsolute(file) ? file : resolve(cwd, file);
  const rel = relative(repo.root, absolute);
  if (!rel || rel.startsWith("..") || isAbsolute(rel)) return void 0;
  return rel.split(sep).join("/");
}
function gitDirOf(dotGit, dir) {
  try {
    if (statSync4(dotGit).isDirectory()) return dotGit;
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync4(dotGit, "utf8"))?.[1]?.trim();
    return pointer ? resolve(dir, pointer) : void 0;
  } catch {
    return void 0;
  }
}
function remoteName(gitDir) {
  const config = readText(join2(commonDir(gitDir), "config"));
  if (!config) return void 0;
  const remotes = [...config.matchAll(/^\s*\[remote\s+"([^"]+)"\]([^[]*)/gm)].map((m) => ({
    name: m[1],
    url: /^\s*url\s*=\s*(.+?)\s*$/m.exec(m[2] ?? "")?.[1]
  }));
  const url = (remotes.find((r) => r.name === "origin" && r.url) ?? remotes.find((r) => r.url))?.url;
  if (!url) return void 0;
  const last = url.replace(/[/\\]+$/, "").split(/[/\\:]/).pop()?.replace(/\.git$/i, "");
  return last || void 0;
}
function commonDir(gitDir) {
  const pointer = readText(join2(gitDir, "commondir"))?.trim();
  return pointer ? resolve(gitDir, pointer) : gitDir;
}
function readText(file) {
  try {
    return readFileSync4(file, "utf8");
  } catch {
    return void 0;
  }
}

// packages/capture/src/guidance.ts
var DELIVERY = {
  "claude-code": { prompt: "json", edit: "json" },
  codex: { prompt: "json", edit: "json" },
  "gemini-cli": { prompt: "json", edit: "json" },
  "kiro-cli": { prompt: "text" },
  "kiro-ide": { prompt: "text" }
};
var CLAUDE_EVENT_NAMES = { prompt: "UserPromptSubmit", edit: "PostToolUse" };
var HOOK_EVENT_NAME = {
  "claude-code": CLAUDE_EVENT_NAMES,
  codex: CLAUDE_EVENT_NAMES,
  "gemini-cli": { prompt: "BeforeAgent", edit: "AfterTool" }
};
var MAX_TASK_CHARS = 2e3;
function deliversGuidance(client2, event2) {
  return CLIENT_IDS.includes(client2 ?? "") && !!DELIVERY[client2][event2];
}
async function runGuidance(run2) {
  const context = `${run2.client ?? "?"} ${run2.event ?? "?"} guidance`;
  try {
    if (!deliversGuidance(run2.client, run2.event)) return null;
    const client2 = run2.client;
    const event2 = run2.event;
    const input = readGuidanceInput(client2, event2, run2.stdin, run2.env, run2.cwd);
    if (!input) return null;
    const loaded = loadCaptureConfig(run2.env, run2.paths);
    if (!loaded.ok) return null;
    const repo = repositoryOf(input.cwd);
    const files = event2 === "edit" ? (input.files ?? []).map((f) => repositoryPath(repo, input.cwd, f)).filter((f) => !!f) : [];
    if (event2 === "edit" && files.length === 0) return null;
    const task = event2 === "prompt" ? redact(input.prompt ?? "").text.trim().slice(0, MAX_TASK_CHARS) : `Change ${files.join(", ")}`.slice(0, MAX_TASK_CHARS);
    if (!task) return null;
    await run2.captured;
    if (run2.signal.aborted) return null;
    const outcome = await callGetGuidance(
      loaded.config,
      { task, project: repo.project, ...files.length && { files } },
      run2.signal
    );
    if (!outcome.ok) {
      logReason(run2.paths, context, outcome.reason);
      return null;
    }
    const session = input.sessionId ? `${client2} ${input.sessionId}` : void 0;
    const given = session ? givenTo(run2.paths, session) : /* @__PURE__ */ new Set();
    const shown = event2 === "prompt" ? promptText(outcome.answer, given) : editText(outcome.answer, given, files);
    if (!shown || run2.signal.aborted) return null;
    if (session) recordGiven(run2.paths, session, shown.ids, run2.now.getTime());
    return DELIVERY[client2][event2] === "json" ? `${JSON.stringify({ hookSpecificOutput: { hookEventName: HOOK_EVENT_NAME[client2]?.[event2], additionalContext: shown.text } })}
` : `${shown.text}
`;
  } catch (error) {
    logReason(run2.paths, context, `internal error: ${error?.name ?? "unknown"}`);
    return null;
  }
}
var PROMPT_HEADER = "Cairn, your organization's knowledge service, gives these rules for this prompt (get_guidance, called by Cairn's hook). Follow them:";
function promptText(answer, given) {
  const all = answer.levels.flatMap((l) => l.items);
  const fresh = all.filter((i) => !given.has(i.entry.id));
  if (fresh.length === 0) return null;
  const ids = fresh.map((i) => i.entry.id);
  const earlier = all.length - fresh.length;
  if (earlier === 0) return { text: `${PROMPT_HEADER}
${answer.text}`, ids };
  const sections = answer.levels.map((l) => ({ scope: l.scope, label: l.label, items: l.items.filter((i) => !given.has(i.entry.id)) })).filter((l) => l.items.length).map((l) => `${l.label}:
${l.items.map((i) => `- ${ruleLine(i, l.scope)}`).join("\n")}`);
  const conflicts = answer.conflicts.filter((c) => !given.has(c.prevails.entry.id) || !given.has(c.overridden.entry.id)).map((c) => `- ${c.rule} [topic: ${c.topic}]`);
  const pointers = answer.mayAlsoApply.filter((p) => !given.has(p.id)).map((p) => `- ${p.title} (${p.id})${p.when ? `: ${p.when}` : ""}`);
  const text = [
    PROMPT_HEADER,
    `New for this prompt (${earlier === 1 ? "1 rule given earlier in this session still applies" : `${earlier} rules given earlier in this session still apply`}), strongest first:`,
    ...sections,
    ...conflicts.length ? ["Conflicts (the first named wins):", ...conflicts] : [],
    ...answer.omitted ? [answer.omitted.note] : [],
    ...pointers.length ? ["May also apply (open with get_entry if it does):", ...pointers] : []
  ].join("\n");
  return { text, ids };
}
function editText(answer, given, files) {
  const fresh = answer.levels.flatMap((l) => l.items).filter((i) => i.reason.startsWith("file:") && !given.has(i.entry.id));
  if (fresh.length === 0) return null;
  const header = `Cairn, your organization's knowledge service: rules for ${files.join(", ")}, which you just changed (get_guidance, called by Cairn's hook). Follow them, strongest first:`;
  const levelOf = new Map(answer.levels.flatMap((l) => l.items.map((i) => [i, l.scope])));
  return {
    text: [header, ...fresh.map((i) => `- ${ruleLine(i, levelOf.get(i))}`)].join("\n"),
    ids: fresh.map((i) => i.entry.id)
  };
}
var USUAL_KIND = { organization: "policy", team: "standard", personal: "preference" };
function ruleLine(item, scope) {
  const kind = scope && USUAL_KIND[scope] === item.entry.kind ? "" : `[${item.entry.kind}] `;
  return `${kind}${item.entry.title} [${item.reason}]: ${item.entry.content}`;
}

// packages/capture/src/paths.ts
import { homedir } from "node:os";
import { join as join3 } from "node:path";
function capturePaths(home = homedir()) {
  const dir = join3(home, ".cairn");
  return {
    dir,
    config: join3(dir, "capture.json"),
    spool: join3(dir, "capture-spool.jsonl"),
    log: join3(dir, "capture.log"),
    given: join3(dir, "guidance-given.json")
  };
}

// packages/capture/src/read-stdin.ts
function readStdin(maxBytes, signal2) {
  const stdin2 = process.stdin;
  if (stdin2.isTTY || signal2.aborted) return Promise.resolve("");
  return new Promise((resolve2) => {
    const chunks = [];
    let size = 0;
    const done = () => {
      stdin2.removeAllListeners();
      signal2.removeEventListener("abort", done);
      stdin2.destroy();
      resolve2(Buffer.concat(chunks).toString("utf8"));
    };
    stdin2.on("data", (chunk) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) done();
    });
    stdin2.on("end", done);
    stdin2.on("error", done);
    signal2.addEventListener("abort", done, { once: true });
  });
}

// packages/capture/src/bin.ts
var NETWORK_DEADLINE_MS = 1400;
var HARD_EXIT_MS = 1800;
var STDIN_DEADLINE_MS = 800;
var MAX_STDIN_BYTES = 16 * 1024 * 1024;
var [client, event] = process.argv.slice(2);
var paths = capturePaths();
var inFlight = /* @__PURE__ */ new Set();
var exit = () => {
  try {
    keepUnsent({ paths, inFlight, client, event });
  } finally {
    process.exit(0);
  }
};
var crash = (error) => {
  logReason(
    paths,
    `${client ?? "?"} ${event ?? "?"}`,
    `internal error: ${error?.name ?? "unknown"} ${error?.code ?? ""}`
  );
  exit();
};
setTimeout(exit, msLeftUntil(HARD_EXIT_MS)).unref();
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);
var signal = AbortSignal.timeout(msLeftUntil(NETWORK_DEADLINE_MS));
var stdin = CLIENT_IDS.includes(client ?? "") && readsStdin(client) ? await readStdin(MAX_STDIN_BYTES, AbortSignal.timeout(msLeftUntil(STDIN_DEADLINE_MS))) : "";
var run = { client, event, stdin, env: process.env, cwd: process.cwd(), paths, now: /* @__PURE__ */ new Date(), signal };
var sent = () => {
};
var captured = new Promise((resolve2) => {
  sent = resolve2;
});
await Promise.all([
  runCapture({ ...run, sent, inFlight }),
  deliversGuidance(client, event) ? runGuidance({ ...run, captured }).then(print) : void 0
]);
exit();
function print(text) {
  if (!text || signal.aborted) return;
  return new Promise((resolve2) => process.stdout.write(text, () => resolve2()));
}
function msLeftUntil(msSinceStart) {
  return Math.max(1, Math.ceil(msSinceStart - performance.now()));
}

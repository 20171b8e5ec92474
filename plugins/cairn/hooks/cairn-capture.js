#!/usr/bin/env node
// Generated from packages/capture by `npm run build -w @cairn/capture`. Do not edit.

// packages/capture/src/bin.ts
import { performance } from "node:perf_hooks";

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
    return { ok: false, reason: `refused ${paths2.config}: mode ${(mode & 511).toString(8)} lets other users read the key; run chmod 600 on it` };
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
var CLIENT_IDS = ["claude-code", "codex", "kiro-cli", "kiro-ide"];
var EVENTS = ["prompt", "stop"];
function readsStdin(client2) {
  return client2 !== "kiro-ide";
}
function readHookInput(client2, event2, stdin2, env, processCwd) {
  if (client2 === "kiro-ide") {
    if (event2 === "stop") return { ok: false, reason: null };
    return found("user", env.USER_PROMPT, { cwd: processCwd });
  }
  let input;
  try {
    const parsed = JSON.parse(stdin2);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { ok: false, reason: "hook input on stdin is not a JSON object" };
    input = parsed;
  } catch {
    return { ok: false, reason: stdin2.trim() ? "hook input on stdin is not JSON" : "no hook input on stdin" };
  }
  const context = { sessionId: str(input.session_id), turnId: str(input.turn_id), cwd: str(input.cwd) ?? processCwd };
  if (event2 === "prompt") return found("user", input.prompt, context);
  if (input.stop_hook_active === true) return { ok: false, reason: null };
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
var CAPTURE_USER_AGENT = "cairn-capture/1.0";
async function postTurns(config, turns, signal2) {
  let response;
  try {
    response = await fetch(captureEndpoint(config.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${config.apiKey}`, "User-Agent": CAPTURE_USER_AGENT, "Content-Type": "application/json" },
      body: JSON.stringify({ turns }),
      signal: signal2
    });
  } catch (error) {
    return { kind: "retry", reason: signal2.aborted ? "timed out" : `unreachable (${causeCode(error)})` };
  }
  const body = await response.json().catch(() => void 0);
  if (response.ok) return { kind: "acknowledged", stored: num(body?.stored), duplicates: num(body?.duplicates) };
  if (response.status === 429 || response.status >= 500) return { kind: "retry", reason: `HTTP ${response.status}` };
  const code = typeof body?.error?.code === "string" ? ` ${body.error.code.slice(0, 60)}` : "";
  return { kind: "rejected", status: response.status, reason: `HTTP ${response.status}${code}` };
}
function num(value) {
  return typeof value === "number" ? value : 0;
}
function causeCode(error) {
  const cause = error?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
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
  const stale = names.filter((n) => n.startsWith(prefix) && n.endsWith(".processing") && now - Number(n.slice(prefix.length).split(".")[0]) > STALE_CLAIM_MS).sort();
  for (const source of [...stale.map((n) => join(paths2.dir, n)), paths2.spool]) {
    const claimed = join(dirname(paths2.spool), `${prefix}${now}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.processing`);
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

// packages/server/src/capture/redact.ts
var PATTERNS = [
  { kind: "private-key", pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g },
  { kind: "cairn-key", pattern: /\bcairn_(?:tkn|stp)_[A-Za-z0-9_-]{10,}/g },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "aws-access-key", pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g },
  { kind: "github-token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { kind: "gitlab-token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "stripe-key", pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: "google-api-key", pattern: /\bAIza[A-Za-z0-9_-]{35}\b/g },
  { kind: "npm-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  // scheme://user:password@host — keep the scheme and user, drop the password.
  { kind: "url-password", pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi, keepGroup: 1 },
  { kind: "aws-secret", pattern: /((?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY)\s*[=:]\s*["']?)[A-Za-z0-9/+=]{40}/g, keepGroup: 1 },
  // password=…, "api_key": "…", token: … — keep the name, drop the value.
  {
    kind: "assigned-secret",
    pattern: /((?:pass(?:word|wd)?|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)["']?\s*[=:]\s*["']?)(?!\[REDACTED)[^\s"',;]{6,}/gi,
    keepGroup: 1
  },
  { kind: "bearer", pattern: /(\bBearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{16,}/g, keepGroup: 1 }
];
function redactSecrets(input) {
  let text = input;
  let count = 0;
  const kinds = /* @__PURE__ */ new Set();
  for (const { kind, pattern, keepGroup } of PATTERNS) {
    text = text.replace(pattern, (...match) => {
      count++;
      kinds.add(kind);
      return `${keepGroup ? match[keepGroup] ?? "" : ""}[REDACTED:${kind}]`;
    });
  }
  return { text, count, kinds: [...kinds] };
}

// packages/capture/src/turn.ts
var MAX_TURN_TEXT = 65536;
function buildTurn(client2, event2, input, at) {
  const text = redactSecrets(input.text).text.slice(0, MAX_TURN_TEXT);
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
var MAX_TURNS_PER_REQUEST = 50;
var MAX_BATCH_BYTES = 1e6;
async function runCapture(run) {
  const context = `${run.client ?? "?"} ${run.event ?? "?"}`;
  try {
    if (!isOneOf(CLIENT_IDS, run.client) || !isOneOf(EVENTS, run.event)) {
      logReason(run.paths, context, `usage: cairn-capture <${CLIENT_IDS.join("|")}> <${EVENTS.join("|")}>`);
      return;
    }
    const reading = readHookInput(run.client, run.event, run.stdin, run.env, run.cwd);
    if (!reading.ok && reading.reason) logReason(run.paths, context, reading.reason);
    const loaded = loadCaptureConfig(run.env, run.paths);
    if (!loaded.ok) {
      if (reading.ok) logReason(run.paths, context, loaded.reason);
      return;
    }
    if (reading.ok) {
      const turn = buildTurn(run.client, run.event, reading.value, run.now);
      if (!await sendCurrent(loaded.config, turn, run, context)) return;
    }
    await drainSpool(loaded.config, run, context);
  } catch (error) {
    logReason(run.paths, context, `internal error: ${error?.name ?? "unknown"}`);
  }
}
async function sendCurrent(config, turn, run, context) {
  const outcome = await postTurns(config, [turn], run.signal);
  if (outcome.kind === "acknowledged") return true;
  if (outcome.kind === "retry") {
    appendToSpool(run.paths, [turn]);
    logReason(run.paths, context, `spooled 1 turn: ${outcome.reason}`);
  } else {
    logReason(run.paths, context, `dropped 1 turn: ${outcome.reason}`);
  }
  return false;
}
async function drainSpool(config, run, context) {
  const claim = claimSpool(run.paths, run.now.getTime());
  if (!claim) return;
  const acknowledged = /* @__PURE__ */ new Set();
  try {
    const queue = batches(claim.turns);
    while (queue.length > 0 && !run.signal.aborted) {
      const batch = queue.shift();
      const outcome = await postTurns(config, batch, run.signal);
      if (outcome.kind === "acknowledged") {
        for (const t of batch) acknowledged.add(t.id);
      } else if (outcome.kind === "retry" || outcome.status === 401 || outcome.status === 403) {
        logReason(run.paths, context, `spool kept: ${outcome.reason}`);
        break;
      } else if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        queue.unshift(batch.slice(0, half), batch.slice(half));
      } else {
        acknowledged.add(batch[0].id);
        logReason(run.paths, context, `dropped 1 spooled turn: ${outcome.reason}`);
      }
    }
  } finally {
    settleClaim(run.paths, claim, acknowledged);
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

// packages/capture/src/paths.ts
import { homedir } from "node:os";
import { join as join2 } from "node:path";
function capturePaths(home = homedir()) {
  const dir = join2(home, ".cairn");
  return { dir, config: join2(dir, "capture.json"), spool: join2(dir, "capture-spool.jsonl"), log: join2(dir, "capture.log") };
}

// packages/capture/src/read-stdin.ts
function readStdin(maxBytes, signal2) {
  const stdin2 = process.stdin;
  if (stdin2.isTTY || signal2.aborted) return Promise.resolve("");
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    const done = () => {
      stdin2.removeAllListeners();
      signal2.removeEventListener("abort", done);
      stdin2.destroy();
      resolve(Buffer.concat(chunks).toString("utf8"));
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
var exit = () => process.exit(0);
var crash = (error) => {
  logReason(paths, `${client ?? "?"} ${event ?? "?"}`, `internal error: ${error?.name ?? "unknown"} ${error?.code ?? ""}`);
  exit();
};
setTimeout(exit, msLeftUntil(HARD_EXIT_MS)).unref();
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);
var signal = AbortSignal.timeout(msLeftUntil(NETWORK_DEADLINE_MS));
var stdin = CLIENT_IDS.includes(client ?? "") && readsStdin(client) ? await readStdin(MAX_STDIN_BYTES, AbortSignal.timeout(msLeftUntil(STDIN_DEADLINE_MS))) : "";
await runCapture({ client, event, stdin, env: process.env, cwd: process.cwd(), paths, now: /* @__PURE__ */ new Date(), signal });
exit();
function msLeftUntil(msSinceStart) {
  return Math.max(1, Math.ceil(msSinceStart - performance.now()));
}

import { CAPTURE_USER_AGENT, INSTALLER_USER_AGENT } from '@cairn/contract';
import type { CaptureConfig } from './config.js';
import { codeOf, parseJson, postJson } from './send.js';

/** One rule of the answer, as get_guidance's structured content gives it. */
export interface GuidanceRule {
  entry: { id: string; title: string; kind: string; content: string };
  /** "always", "file: <glob>", "project: <name>" or "topic". */
  reason: string;
  score?: number;
}

/** A pointer to a rule that may also apply (named, not given in full), when the server sends them. */
export interface RulePointer {
  id: string;
  title: string;
  level?: string;
  when?: string;
}

/** get_guidance's answer: its text as the tool gives it, and the rules it holds. */
export interface GuidanceAnswer {
  text: string;
  levels: { scope?: string; label: string; items: GuidanceRule[] }[];
  conflicts: { rule: string; topic: string; prevails: GuidanceRule; overridden: GuidanceRule }[];
  omitted: { note: string } | null;
  mayAlsoApply: RulePointer[];
}

export type GuidanceOutcome = { ok: true; answer: GuidanceAnswer } | { ok: false; reason: string };

/** A guidance answer is a few kilobytes; far more than this is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Cairn's MCP endpoint takes an API key with the installer's User-Agent; this hook is what the installer set up. */
const USER_AGENT = `${INSTALLER_USER_AGENT} ${CAPTURE_USER_AGENT}`;

/**
 * Calls `get_guidance` with one stateless MCP `tools/call` POST: the task (a prompt) travels in the
 * body, never in a URL a proxy would log, and no `initialize` round trip is needed. Never throws.
 */
export async function callGetGuidance(
  config: CaptureConfig,
  args: { task: string; files?: string[]; project?: string },
  signal: AbortSignal,
): Promise<GuidanceOutcome> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_guidance', arguments: args },
  });
  const headers = {
    Authorization: `Bearer ${config.apiKey}`,
    'User-Agent': USER_AGENT,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2025-06-18',
  };
  let answer: { status: number; text: string };
  try {
    answer = await postJson(new URL(mcpEndpoint(config.url)), body, headers, signal, MAX_ANSWER_BYTES);
  } catch (error) {
    return { ok: false, reason: signal.aborted ? 'timed out' : `unreachable (${codeOf(error)})` };
  }
  if (answer.status < 200 || answer.status >= 300) return { ok: false, reason: `HTTP ${answer.status}` };
  const message = jsonRpcMessage(answer.text) as
    | {
        result?: { isError?: boolean; content?: { type?: string; text?: unknown }[]; structuredContent?: unknown };
        error?: { code?: unknown };
      }
    | undefined;
  // The code only: a message could echo the task.
  if (message?.error)
    return { ok: false, reason: `JSON-RPC error ${typeof message.error.code === 'number' ? message.error.code : '?'}` };
  if (message?.result?.isError) return { ok: false, reason: 'get_guidance refused the call' };
  const text = message?.result?.content?.find((c) => c.type === 'text')?.text;
  const structured = message?.result?.structuredContent as Partial<GuidanceAnswer> | undefined;
  if (typeof text !== 'string' || !structured || !Array.isArray(structured.levels))
    return { ok: false, reason: 'not a get_guidance answer' };
  return {
    ok: true,
    answer: {
      text,
      levels: structured.levels.filter((l) => Array.isArray(l?.items)),
      conflicts: Array.isArray(structured.conflicts) ? structured.conflicts : [],
      omitted: structured.omitted ?? null,
      mayAlsoApply: Array.isArray(structured.mayAlsoApply)
        ? structured.mayAlsoApply.filter((p) => typeof p?.id === 'string')
        : [],
    },
  };
}

/** The MCP address under a Cairn base URL; the MCP address itself is accepted too. */
export function mcpEndpoint(url: string): string {
  return `${url.replace(/\/+$/, '').replace(/\/mcp$/, '')}/mcp`;
}

/** The JSON-RPC message of a JSON answer, or of the first `data:` event of a streamed one. */
function jsonRpcMessage(text: string): unknown {
  const direct = parseJson(text);
  if (direct !== undefined) return direct;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const event = parseJson(line.slice(5).trim()) as { result?: unknown; error?: unknown } | undefined;
    if (event && (event.result !== undefined || event.error !== undefined)) return event;
  }
  return undefined;
}

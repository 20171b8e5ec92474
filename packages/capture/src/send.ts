import { request as httpRequest } from 'node:http';
import { CAPTURE_USER_AGENT } from '@cairn/contract';
import { type CaptureConfig, captureEndpoint } from './config.js';
import type { CaptureTurn } from './turn.js';

/** What the server made of one request. */
export type SendOutcome =
  | { kind: 'acknowledged'; stored: number; duplicates: number }
  /** Unreachable, timed out, 5xx or 429: keep the turns and try again later. */
  | { kind: 'retry'; reason: string }
  /** Any other 4xx: resending the same request cannot succeed. */
  | { kind: 'rejected'; status: number; reason: string };

/** More of an answer than this is not read: Cairn's answers are a few hundred bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs turns to `<url>/api/v1/capture`; never throws. Through node:http rather than the global
 * fetch: loading fetch's HTTP stack costs a new process about 100 ms, and a hook runs in every turn.
 */
export async function postTurns(
  config: CaptureConfig,
  turns: CaptureTurn[],
  signal: AbortSignal,
): Promise<SendOutcome> {
  let answer: { status: number; text: string };
  try {
    const url = new URL(captureEndpoint(config.url));
    const headers = {
      Authorization: `Bearer ${config.apiKey}`,
      'User-Agent': CAPTURE_USER_AGENT,
      'Content-Type': 'application/json',
    };
    answer = await postJson(url, JSON.stringify({ turns }), headers, signal, MAX_ANSWER_BYTES);
  } catch (error) {
    return { kind: 'retry', reason: signal.aborted ? 'timed out' : `unreachable (${codeOf(error)})` };
  }
  const body = parseJson(answer.text) as
    | { stored?: unknown; duplicates?: unknown; error?: { code?: unknown } }
    | undefined;
  if (answer.status >= 200 && answer.status < 300)
    return { kind: 'acknowledged', stored: num(body?.stored), duplicates: num(body?.duplicates) };
  if (answer.status === 429 || answer.status >= 500) return { kind: 'retry', reason: `HTTP ${answer.status}` };
  // The error code only: a message could in principle echo what was sent.
  const code = typeof body?.error?.code === 'string' ? ` ${body.error.code.slice(0, 60)}` : '';
  return { kind: 'rejected', status: answer.status, reason: `HTTP ${answer.status}${code}` };
}

/** POSTs a body and reads up to `maxBytes` of the answer; rejects on a network error or the signal. */
export async function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  maxBytes: number,
): Promise<{ status: number; text: string }> {
  // node:https (and TLS) loads only when the URL needs it: a hook pays for every module it loads.
  const send = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      { method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(body) }, signal },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= maxBytes) chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

export function codeOf(error: unknown): string {
  // A socket error carries its code (ECONNREFUSED…); one per address tried comes as an AggregateError.
  const e = error as { code?: unknown; errors?: { code?: unknown }[] };
  const code = e?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : 'network error';
}

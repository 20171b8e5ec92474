import { type CaptureConfig, captureEndpoint } from './config.js';
import type { CaptureTurn } from './turn.js';

/** What the server made of one request. */
export type SendOutcome =
  | { kind: 'acknowledged'; stored: number; duplicates: number }
  /** Unreachable, timed out, 5xx or 429: keep the turns and try again later. */
  | { kind: 'retry'; reason: string }
  /** Any other 4xx: resending the same request cannot succeed. */
  | { kind: 'rejected'; status: number; reason: string };

/** The User-Agent every capture request carries. */
export const CAPTURE_USER_AGENT = 'cairn-capture/1.0';

/** POSTs turns to `<url>/api/v1/capture`; never throws. */
export async function postTurns(config: CaptureConfig, turns: CaptureTurn[], signal: AbortSignal): Promise<SendOutcome> {
  let response: Response;
  try {
    response = await fetch(captureEndpoint(config.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${config.apiKey}`, 'User-Agent': CAPTURE_USER_AGENT, 'Content-Type': 'application/json' },
      body: JSON.stringify({ turns }),
      signal,
    });
  } catch (error) {
    return { kind: 'retry', reason: signal.aborted ? 'timed out' : `unreachable (${causeCode(error)})` };
  }
  const body = (await response.json().catch(() => undefined)) as { stored?: unknown; duplicates?: unknown; error?: { code?: unknown } } | undefined;
  if (response.ok) return { kind: 'acknowledged', stored: num(body?.stored), duplicates: num(body?.duplicates) };
  if (response.status === 429 || response.status >= 500) return { kind: 'retry', reason: `HTTP ${response.status}` };
  // The error code only: a message could in principle echo what was sent.
  const code = typeof body?.error?.code === 'string' ? ` ${body.error.code.slice(0, 60)}` : '';
  return { kind: 'rejected', status: response.status, reason: `HTTP ${response.status}${code}` };
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function causeCode(error: unknown): string {
  // undici wraps the socket error, sometimes in an AggregateError (one per address tried).
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } })?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : 'network error';
}

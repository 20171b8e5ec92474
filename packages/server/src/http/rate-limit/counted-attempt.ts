import type { Limit } from '../../rate-limits/rate-limits.js';

/** One attempt as the limits see it: the counters it is charged to, and which one refused it. */
export interface Charge {
  limit: Limit;
  key: string;
  /** What the client is told when this counter refuses, e.g. "Too many failed sign-ins from your network." */
  refusal: string;
}

/**
 * Charges an attempt to every counter before it is tried, so parallel attempts cannot slip past
 * a check that has not yet seen the others. Refused: nothing stays charged (the attempt never
 * ran), and the longest wait is returned with the message of the counter that imposed it.
 */
export async function chargeAttempt(charges: Charge[]): Promise<{ wait: number; refusal: string } | undefined> {
  const waits = await Promise.all(charges.map((c) => c.limit.take(c.key)));
  const worst = waits.reduce((best, wait, i) => (wait > (waits[best] ?? 0) ? i : best), 0);
  const wait = waits[worst] ?? 0;
  if (wait === 0) return undefined;
  await refund(charges);
  return { wait, refusal: charges[worst]!.refusal };
}

/** Takes an attempt back off every counter (it succeeded, or the server failed it). */
export async function refund(charges: Charge[]): Promise<void> {
  await Promise.all(charges.map((c) => c.limit.giveBack(c.key)));
}

/** Whether an answer counts as a failed attempt: refused by a 4xx. Successes and server errors are not the client's failures. */
export function isFailure(status: number): boolean {
  return status >= 400 && status < 500;
}

/**
 * Whether `pathname` names `endpoint` under `base`, however it is spelled (percent-encoding,
 * case, doubled or trailing slashes), so a variant the router would still serve cannot skip a limit.
 */
export function isEndpoint(pathname: string, endpoint: string): boolean {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: compare as sent.
  }
  return (
    path
      .toLowerCase()
      .replace(/\/{2,}/g, '/')
      .replace(/\/+$/, '') === endpoint.toLowerCase()
  );
}

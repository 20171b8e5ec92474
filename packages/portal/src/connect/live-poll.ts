/** The steady pace of the Connect dialog's status poll: one request at most every 2 s while it waits. */
export const POLL_EVERY_MS = 2000;
/** The longest wait between polls after failures in a row. */
export const LONGEST_WAIT_MS = 60_000;

/**
 * How long to wait before the next status poll: the steady pace after an answer, doubling after each
 * failure in a row (an outage or a 429 must not be met with more requests), and never sooner than the
 * server's Retry-After.
 */
export function nextPollDelay(failuresInARow: number, retryAfterSeconds?: number): number {
  const backoff = Math.min(POLL_EVERY_MS * 2 ** Math.max(0, failuresInARow), LONGEST_WAIT_MS);
  return Math.max(backoff, (retryAfterSeconds ?? 0) * 1000);
}

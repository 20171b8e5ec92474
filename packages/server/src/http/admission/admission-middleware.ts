import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { BoundedCache } from '../../cache/bounded-cache.js';
import type { Logger } from '../../log/logger.js';
import { addressKey, type ClientAddressOf } from '../client-address.js';
import { jsonRpcId } from '../json-rpc-id.js';
import type { Admission, Refused } from './admission.js';
import { busyJson, busyJsonRpc } from './busy-response.js';

/** Credentials remembered as genuine (answered other than 401), so each gets its own line in the queue. */
const KNOWN_CREDENTIALS = 10_000;
/** Quiet this long after the last refusal, the instance logs that it is no longer busy. */
const CALM_AFTER_MS = 10_000;

/** Work that waits its turn: the MCP endpoint and the APIs. Probes, discovery documents, downloads and portal files never do. */
export function isQueuedWork(path: string): boolean {
  return path === '/mcp' || path === '/mcp/' || path.startsWith('/api/');
}

const REFUSALS: Record<Refused['reason'], string> = {
  full: 'too many requests are in progress or waiting on this instance',
  slow: 'too many requests are waiting on this instance to answer this one in time',
  timeout: 'this request waited its longest allowed turn on this instance',
};

/**
 * Takes a turn from the instance's admission queue for each request to /mcp and /api, and answers
 * 503 "busy" with Retry-After when none comes. Its place in the queue follows the credential it
 * presents once that credential has proven genuine; until then (and for forged ones) the client's
 * address, so minting fake tokens does not buy more turns.
 *
 * Two middlewares: `early`, first of all, refuses what would be refused anyway before the body is
 * read (on /mcp its JSON-RPC id is then unknown: null, as for the rate limits); `turn`, after the
 * body limits (a slow upload must not hold a turn), waits for the turn.
 */
export function admissionControl(
  admission: Admission,
  clientAddress: ClientAddressOf,
  log: Logger,
): { early: MiddlewareHandler; turn: MiddlewareHandler } {
  const known = new BoundedCache<string, true>(KNOWN_CREDENTIALS);
  let busySince: number | undefined;
  let lastRefusal = 0;
  const lineOf = (c: Context, presented: string | undefined) =>
    presented && known.has(presented) ? `credential:${presented}` : `address:${addressKey(clientAddress(c))}`;
  const refused = async (c: Context, refusal: Refused, readId: boolean): Promise<Response> => {
    lastRefusal = Date.now();
    if (busySince === undefined) {
      busySince = lastRefusal;
      log.warn('busy: refusing requests with 503 until load drops (see docs/overload.md)', {
        ...admission.load,
        ...admission.settings,
      });
    }
    const why = REFUSALS[refusal.reason];
    if (!c.req.path.startsWith('/mcp')) return busyJson(refusal.retryAfterSeconds, why);
    return busyJsonRpc(readId ? await jsonRpcId(c.req.raw) : null, refusal.retryAfterSeconds, why);
  };
  const early: MiddlewareHandler = async (c, next) => {
    if (!isQueuedWork(c.req.path)) return next();
    const refusal = admission.refusesNow(lineOf(c, presentedCredential(c)));
    return refusal ? refused(c, refusal, false) : next();
  };
  const turn: MiddlewareHandler = async (c, next) => {
    if (!isQueuedWork(c.req.path)) return next();
    const presented = presentedCredential(c);
    const taken = await admission.enter(lineOf(c, presented), c.req.raw.signal);
    if (!taken.admitted) return refused(c, taken, true);
    if (busySince !== undefined && Date.now() - lastRefusal > CALM_AFTER_MS) {
      log.info('no longer busy', {
        refused: admission.refusals,
        forSeconds: Math.round((lastRefusal - busySince) / 1000),
      });
      busySince = undefined;
      admission.refusals = 0;
    }
    try {
      await next();
    } finally {
      taken.release();
    }
    if (!presented) return;
    if (c.res.status === 401) known.delete(presented);
    else known.set(presented, true);
  };
  return { early, turn };
}

// Module-level on purpose: keyed weakly by the Request itself, a field of one request of one Cairn, so nothing is shared.
/** Each request's credential digest, found once: both admission steps and the answer's bookkeeping ask for it. */
const digests = new WeakMap<Request, string | undefined>();

/** A digest of the credential a request carries (API key, OAuth token or session cookie), never the credential itself. */
function presentedCredential(c: Context): string | undefined {
  const request = c.req.raw;
  if (digests.has(request)) return digests.get(request);
  const value = c.req.header('authorization') ?? c.req.header('api_key') ?? c.req.header('cookie');
  const digest = value ? createHash('sha256').update(value).digest('base64url') : undefined;
  digests.set(request, digest);
  return digest;
}

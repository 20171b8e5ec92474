import type { Context } from 'hono';
import { UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_S } from '../errors/database-unavailable.js';
import type { KyselyStore } from '../store/kysely-store.js';
import { unavailableJsonResponse } from './unavailable-response.js';

/** Readiness answers are reused this long, so a busy load balancer costs the database one query a second. */
const CACHE_MS = 1_000;
/** A database slower than this to answer `SELECT 1` is treated as unreachable. */
const CHECK_TIMEOUT_MS = 2_000;

/** Whether the database answers; checks are shared by concurrent callers and cached briefly. */
export class Readiness {
  private last: { at: number; ready: boolean } | undefined;
  private inFlight: Promise<boolean> | undefined;

  constructor(private readonly store: Pick<KyselyStore, 'ping' | 'health'>) {}

  async ready(): Promise<boolean> {
    if (this.last && Date.now() - this.last.at < CACHE_MS) return this.last.ready;
    this.inFlight ??= this.check().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async check(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error('readiness check timed out'), { code: 'ETIMEDOUT' })),
        CHECK_TIMEOUT_MS,
      );
    });
    let ready: boolean;
    try {
      await Promise.race([this.store.ping(), timeout]);
      this.store.health.noteReachable();
      ready = true;
    } catch (error) {
      this.store.health.noteError(error);
      ready = false;
    } finally {
      clearTimeout(timer);
    }
    this.last = { at: Date.now(), ready };
    return ready;
  }
}

/** `GET /readyz`: 200 while the database answers, 503 with Retry-After while it does not. */
export function readinessRoute(readiness: Readiness) {
  return async (c: Context): Promise<Response> => {
    c.header('Cache-Control', 'no-store');
    if (await readiness.ready()) return c.json({ status: 'ready' });
    c.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
    return c.json({ status: 'unavailable', message: UNAVAILABLE_MESSAGE }, 503);
  };
}

/**
 * better-auth turns some database failures into its own 500 before Cairn sees the error; a 5xx from it
 * while the database does not answer is the outage's 503.
 */
export async function unavailableIfDatabaseDown(response: Response, readiness: Readiness): Promise<Response> {
  if (response.status < 500 || (await readiness.ready())) return response;
  await response.body?.cancel().catch(() => {});
  return unavailableJsonResponse();
}

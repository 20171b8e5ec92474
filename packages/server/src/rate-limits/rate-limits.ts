import { createHash } from 'node:crypto';
import type pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RateLimitSettings } from '../config/load-config.js';
import type { KyselyStore } from '../store/kysely-store.js';

/** Where the shared limits live on PostgreSQL (rate-limiter-flexible's layout). */
export const RATE_LIMIT_TABLE = 'rate_limit';

/** One limit: at most `points` per fixed window of `windowSeconds`, per key. */
export class Limit {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly points: number,
    readonly windowSeconds: number,
  ) {}

  /** Counts `points` for `key`: 0 when within the limit, else the seconds until it may be tried again. Store failures throw. */
  async take(key: string, points = 1): Promise<number> {
    try {
      await this.limiter.consume(storedKey(key), points);
      return 0;
    } catch (error) {
      if (error instanceof RateLimiterRes) return Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw error;
    }
  }

  /** Takes back points counted for an attempt that turned out not to count (a success, or refused before it was tried). */
  async giveBack(key: string, points = 1): Promise<void> {
    await this.limiter.reward(storedKey(key), points);
  }
}

/**
 * Every limit Cairn enforces. The brute-force limits (sign-in, codes, registration, CIMD) are
 * shared by all instances through PostgreSQL, or kept in memory on SQLite (one process); the
 * per-credential request limits sit on the hot path and are kept in memory by each instance.
 */
export interface RateLimits {
  signInPerAccountAndAddress: Limit;
  signInPerAccount: Limit;
  signInPerAddress: Limit;
  codeFailuresPerAddress: Limit;
  oauthRegistrationsPerAddress: Limit;
  oauthCimdFetchesPerAddress: Limit;
  requestsPerCredential: Limit;
  /** The Connect dialog's status poll, on a budget of its own so that a portal left open never spends the person's request limit. */
  connectionStatusPerUser: Limit;
  captureTurnsPerKey: Limit;
  close(): void;
}

const MINUTE = 60;
/** The Connect dialog's status polls a person may make a minute (GET /api/v1/keys/connected). */
export const CONNECTION_STATUS_PER_MINUTE = 90;

/**
 * Builds the limits for this store. On PostgreSQL it creates the shared table; call it inside the
 * store's start-up lock, so instances starting together do not race to create it.
 */
export async function openRateLimits(
  store: KyselyStore,
  settings: RateLimitSettings & { captureTurnsPerMinute: number },
): Promise<RateLimits> {
  const pool = store.dialect === 'postgres' ? poolOf(store) : undefined;
  if (pool) {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
    );
  }
  const shared = (keyPrefix: string, points: number, windowSeconds: number) => {
    const options = { keyPrefix, points, duration: windowSeconds };
    const limiter = pool
      ? new RateLimiterPostgres({
          ...options,
          storeClient: pool,
          storeType: 'pool',
          tableName: RATE_LIMIT_TABLE,
          tableCreated: true,
          clearExpiredByTimeout: false,
        })
      : new RateLimiterMemory(options);
    return new Limit(limiter, points, windowSeconds);
  };
  const local = (keyPrefix: string, points: number, windowSeconds: number) =>
    new Limit(new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds }), points, windowSeconds);

  // Rows whose window ended an hour ago are dead weight; one sweep every few minutes keeps the table small.
  const sweeper = pool
    ? setInterval(
        () =>
          void pool
            .query(`DELETE FROM ${RATE_LIMIT_TABLE} WHERE expire < $1`, [Date.now() - 60 * MINUTE * 1000])
            .catch(() => {}),
        5 * MINUTE * 1000,
      )
    : undefined;
  sweeper?.unref();

  return {
    signInPerAccountAndAddress: shared(
      'sign-in-account-address',
      settings.signInFailuresPerAccountAndAddress,
      15 * MINUTE,
    ),
    signInPerAccount: shared('sign-in-account', settings.signInFailuresPerAccount, 60 * MINUTE),
    signInPerAddress: shared('sign-in-address', settings.signInFailuresPerAddress, 60 * MINUTE),
    codeFailuresPerAddress: shared('code-failures-address', settings.codeFailuresPerAddress, 60 * MINUTE),
    oauthRegistrationsPerAddress: shared(
      'oauth-registrations-address',
      settings.oauthRegistrationsPerAddress,
      10 * MINUTE,
    ),
    oauthCimdFetchesPerAddress: shared('oauth-cimd-address', settings.oauthCimdFetchesPerAddress, 10 * MINUTE),
    requestsPerCredential: local('requests', settings.requestsPerMinute, MINUTE),
    // The dialog polls every 2 s at most: two dialogs open in two tabs fit, a runaway loop does not.
    connectionStatusPerUser: local('connection-status', CONNECTION_STATUS_PER_MINUTE, MINUTE),
    // "N a minute, bursts of twice that": 2N per two-minute window.
    captureTurnsPerKey: local('capture-turns', settings.captureTurnsPerMinute * 2, 2 * MINUTE),
    close: () => clearInterval(sweeper),
  };
}

function poolOf(store: KyselyStore): pg.Pool {
  const pool = (store as KyselyStore & { pool?: pg.Pool }).pool;
  if (!pool) throw new Error('The PostgreSQL store has no connection pool to keep the shared rate limits in.');
  return pool;
}

/** Keys hold e-mail addresses and client addresses: only a digest is kept (and it fits the column). */
function storedKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

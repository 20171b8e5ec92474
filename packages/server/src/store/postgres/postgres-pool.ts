import pg from 'pg';
import { DatabaseBusyError } from '../../errors/server-busy.js';

/** How long to wait for a connection (new, or a free one from the pool) before answering 503. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Connections each instance keeps to PostgreSQL unless CAIRN_DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = 10;
/** A database slower than this to answer `SELECT 1` on the probe's own connection is treated as unreachable. */
const PROBE_TIMEOUT_MS = 2_000;
/** Probe answers are reused this long, so an overloaded instance costs the database one probe a second. */
const PROBE_CACHE_MS = 1_000;

/** The pool's size and how long a query waits for one of its connections. */
export interface PoolSettings {
  size?: number;
  connectTimeoutMs?: number;
}

/** Opens a connection pool; many Cairn instances may share the database behind it. */
export function openPostgresPool(connectionString: string, settings: PoolSettings = {}): pg.Pool {
  // keepAlive: a peer that vanished without closing (network partition) is noticed instead of waited on forever.
  return new pg.Pool({
    connectionString,
    max: settings.size ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
}

/** pg-pool's error when no connection came free (or none could be made) within connectionTimeoutMillis. */
export function isPoolWaitTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'timeout exceeded when trying to connect';
}

/**
 * One connection of its own, outside the pool, that answers "is the database up?" while every
 * pooled connection is in use. pg-pool says "timeout exceeded when trying to connect" both when its
 * connections are all busy (load) and when new ones cannot be made (outage); the probe tells them
 * apart, and the readiness check uses it too, so an exhausted pool never reads as an outage.
 */
export class DatabaseProbe {
  private readonly probe: pg.Pool;
  private last: { at: number; answers: boolean } | undefined;
  private inFlight: Promise<boolean> | undefined;

  constructor(pool: pg.Pool) {
    const { connectionString, host, port, user, password, database, ssl, connectionTimeoutMillis } = pool.options;
    this.probe = new pg.Pool({
      ...{ connectionString, host, port, user, password, database, ssl },
      max: 1,
      connectionTimeoutMillis: Math.min(connectionTimeoutMillis || PROBE_TIMEOUT_MS, PROBE_TIMEOUT_MS),
      idleTimeoutMillis: 60_000,
      allowExitOnIdle: true,
    });
    // A dropped idle probe connection is replaced at the next probe; the outage itself is logged by the store.
    this.probe.on('error', () => {});
  }

  /** Throws unless the database answers `SELECT 1` within the probe's time-out. */
  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error('database probe timed out'), { code: 'ETIMEDOUT' })),
        PROBE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.probe.query('SELECT 1'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the database answered a probe in the last second (one probe at a time, shared by every caller). */
  async answers(): Promise<boolean> {
    if (this.last && Date.now() - this.last.at < PROBE_CACHE_MS) return this.last.answers;
    this.inFlight ??= this.ping()
      .then(
        () => true,
        () => false,
      )
      .then((answers) => {
        this.last = { at: Date.now(), answers };
        return answers;
      })
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /**
   * The error a failed pool checkout should surface: a pool-wait time-out while the database answers
   * the probe is the instance being busy; anything else (an unreachable database) stays as it was.
   */
  async judge(error: unknown, pool: pg.Pool): Promise<unknown> {
    if (!isPoolWaitTimeout(error) || !(await this.answers())) return error;
    return new DatabaseBusyError(
      pool.options.max ?? DEFAULT_POOL_SIZE,
      pool.options.connectionTimeoutMillis ?? CONNECT_TIMEOUT_MS,
    );
  }

  end(): Promise<void> {
    return this.probe.end();
  }
}

import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { DatabaseHealth } from '../database-health.js';
import { type CandidateRow, KyselyStore } from '../kysely-store.js';
import { runMigrations } from '../run-migrations.js';
import type { Database } from '../schema.js';
import { termStem } from '../search-ranking.js';
import { postgresMigrations } from './postgres-migrations.js';

/** Arbitrary but fixed: every Cairn instance must use the same key. */
const STARTUP_LOCK_KEY = 0x636169726e; // "cairn"

/** How long to wait for a connection (new, or a free one from the pool) before answering 503. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** Opens a connection pool; many Cairn instances may share the database behind it. */
export function openPostgresPool(connectionString: string): pg.Pool {
  // keepAlive: a peer that vanished without closing (network partition) is noticed instead of waited on forever.
  return new pg.Pool({ connectionString, max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
}

/** The scale-out backend: PostgreSQL, tsvector for search. */
export class PostgresStore extends KyselyStore {
  readonly dialect = 'postgres';

  constructor(readonly pool: pg.Pool) {
    const health = new DatabaseHealth();
    const connect = () =>
      pool.connect().catch((error: unknown) => {
        health.noteError(error);
        throw error;
      });
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect, end: () => pool.end() } }) }), health);
    this.connect = connect;
    // A pooled connection the server drops (restart, pg_terminate_backend, network) emits 'error', and
    // an unheard 'error' ends the process. The pool hears idle clients; checked-out ones need their own
    // listener. Either way the pool discards the broken client and the next query opens a new one.
    pool.on('error', (error) => this.health.noteConnectionError(error));
    pool.on('connect', (client) => {
      client.on('error', (error) => this.health.noteConnectionError(error));
      this.health.noteReachable();
    });
  }

  /** A connection from the pool; a failure to get one counts towards the outage state. */
  private readonly connect: () => Promise<pg.PoolClient>;

  async withStartupLock<T>(work: () => Promise<T>): Promise<T> {
    // A session-level advisory lock on a connection of its own: the work itself uses the pool.
    const client = await this.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }

  async migrate(): Promise<void> {
    await runMigrations(this.db, postgresMigrations);
  }

  protected async searchCandidates(datapackIds: string[], terms: string[], kinds: string[] | undefined, max: number, prefixes: boolean): Promise<CandidateRow[]> {
    const kindFilter = kinds?.length ? sql`AND kind = ANY(${kinds})` : sql``;
    // Each term as itself (english stemming) or as a prefix of its rough stem, as on SQLite.
    const query = terms
      .map((t) => {
        const stem = prefixes && termStem(t);
        return stem ? `${t} | ${stem}:*` : t;
      })
      .join(' | ');
    // Starts from the caller's datapacks (the entry_datapack index) and tests only their rows'
    // tsvectors against the query: a global GIN lookup would match every tenant's rows first.
    // Beyond `max` matches the most recent are kept: a choice that depends on the caller's data only.
    const { rows } = await sql<CandidateRow>`
      WITH mine AS MATERIALIZED (
        SELECT id, kind, version, updated_at, search FROM entry
        WHERE datapack_id = ANY(${datapackIds}) AND deleted_at IS NULL ${kindFilter})
      SELECT mine.id, mine.kind, mine.version, mine.updated_at FROM mine, to_tsquery('english', ${query}) q
      WHERE mine.search @@ q
      ORDER BY mine.updated_at DESC, mine.id
      LIMIT ${max}`.execute(this.db);
    return rows;
  }

  protected isUniqueViolation(error: unknown): boolean {
    return (error as { code?: string }).code === '23505';
  }
}

import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import type { CandidateRow } from '../../search/index.js';
import { termStem } from '../../search/index.js';
import { DatabaseHealth } from '../database-health.js';
import { KyselyStore } from '../kysely-store.js';
import { statementName } from '../prepared-query.js';
import { runMigrations } from '../run-migrations.js';
import type { Database } from '../schema.js';
import { postgresMigrations } from './postgres-migrations.js';
import { DatabaseProbe } from './postgres-pool.js';

/** Arbitrary but fixed: every Cairn instance must use the same key. */
const STARTUP_LOCK_KEY = 0x636169726e; // "cairn"

export { openPostgresPool } from './postgres-pool.js';

/** PostgreSQL's answer to a named statement whose table changed shape since it was planned (a migration by another instance). */
const CACHED_PLAN_CHANGED = '0A000';

/**
 * Runs the queries compiled once (prepared-query.ts) as named statements on this connection, so
 * PostgreSQL parses and plans each once per connection, not per call (the server's CPU saved is in
 * docs/benchmarks.md). Any other SQL runs as before.
 */
function useNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    const name =
      args.length === 2 && typeof text === 'string' && Array.isArray(values) ? statementName(text) : undefined;
    if (!name) return query(...args);
    return query({ name, text, values }).catch((error: { code?: string }) => {
      if (error?.code !== CACHED_PLAN_CHANGED) throw error;
      return query({ text, values });
    });
  }) as typeof client.query;
}

/** The scale-out backend: PostgreSQL, tsvector for search. */
export class PostgresStore extends KyselyStore {
  readonly dialect = 'postgres';

  constructor(readonly pool: pg.Pool) {
    const health = new DatabaseHealth();
    const probe = new DatabaseProbe(pool);
    const connect = () =>
      pool.connect().catch(async (error: unknown) => {
        // All connections in use while the database answers is load ("busy"), not an outage.
        const judged = await probe.judge(error, pool);
        health.noteError(judged);
        throw judged;
      });
    const end = () => Promise.all([pool.end(), probe.end()]).then(() => {});
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect, end } }) }), health);
    this.connect = connect;
    this.probe = probe;
    // A pooled connection the server drops (restart, pg_terminate_backend, network) emits 'error', and
    // an unheard 'error' ends the process. The pool hears idle clients; checked-out ones need their own
    // listener. Either way the pool discards the broken client and the next query opens a new one.
    pool.on('error', (error) => this.health.noteConnectionError(error));
    pool.on('connect', (client) => {
      client.on('error', (error) => this.health.noteConnectionError(error));
      useNamedStatements(client);
      this.health.noteReachable();
    });
  }

  /** A connection from the pool; a failure to get one counts towards the outage state. */
  private readonly connect: () => Promise<pg.PoolClient>;
  private readonly probe: DatabaseProbe;

  /** Readiness asks on a connection outside the pool: an instance whose pool is exhausted is busy, not down. */
  override ping(): Promise<void> {
    return this.probe.ping();
  }

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

  protected async searchCandidates(
    datapackIds: string[],
    terms: string[],
    kinds: string[] | undefined,
    max: number,
    prefixes: boolean,
  ): Promise<CandidateRow[]> {
    const kindFilter = kinds?.length ? sql`AND kind = ANY(${kinds})` : sql``;
    // Each term as itself (english stemming) or as a prefix of its rough stem, as on SQLite. A
    // number also as a prefix: the parser keeps "3.1" as one token where FTS5 and search see "3" and
    // "1", and ranking then counts only the number itself.
    const query = terms
      .map((t) => {
        const stem = prefixes && termStem(t);
        return stem ? `${t} | ${stem}:*` : /^\d+$/.test(t) ? `${t}:*` : t;
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

  isUniqueViolation(error: unknown): boolean {
    return (error as { code?: string }).code === '23505';
  }
}

import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { BoundedCache } from '../../cache/bounded-cache.js';

/** Distinct SQL texts kept prepared; `IN (?, ?, …)` lists make a few shapes per query, so this is generous. */
const MAX_STATEMENTS = 512;

/**
 * better-sqlite3 as Kysely's SQLite driver sees it, with each SQL text prepared once: the driver
 * prepares on every query, and compiling the same statement again is a share of a search's cost (docs/benchmarks.md).
 * Reusing a statement is safe because better-sqlite3 runs each one to completion synchronously
 * (Cairn never streams a query, which would hold its statement open).
 */
export function withStatementCache(db: BetterSqlite3.Database, max = MAX_STATEMENTS): SqliteDatabase {
  const prepared = new BoundedCache<string, BetterSqlite3.Statement>(max);
  return {
    close: () => {
      prepared.clear();
      db.close();
    },
    prepare(sql: string): SqliteStatement {
      const statement = prepared.get(sql) ?? db.prepare(sql);
      // Stored again on every use: the least recently used goes first.
      prepared.set(sql, statement);
      return statement as unknown as SqliteStatement;
    },
  };
}

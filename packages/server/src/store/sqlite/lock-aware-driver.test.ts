import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { busyReason, DatabaseLockedError } from '../../errors/server-busy.js';
import { LockAwareSqliteDialect } from './lock-aware-driver.js';
import { openSqliteDatabase } from './sqlite-store.js';
import { withStatementCache } from './statement-cache.js';

// A second connection to the same file takes the write lock, as another process would (SQLite's locks are per connection).
let dir: string;
let raw: BetterSqlite3.Database;
let other: BetterSqlite3.Database;
let db: Kysely<{ t: { n: number } }>;
const wait = { ms: 300 };

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-lock-'));
  raw = openSqliteDatabase(join(dir, 'x.db'));
  raw.exec('CREATE TABLE t (n INTEGER)');
  other = new BetterSqlite3(join(dir, 'x.db'), { timeout: 0 });
  db = new Kysely({ dialect: new LockAwareSqliteDialect(withStatementCache(raw), raw, wait) });
});
after(async () => {
  await db.destroy();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The longest the event loop went without running a 5 ms timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}

test('a write that meets a held lock fails as busy after the wait, without stalling the event loop', async () => {
  other.exec('BEGIN IMMEDIATE');
  try {
    let failure: unknown;
    const started = performance.now();
    const stall = await longestStall(() =>
      db
        .insertInto('t')
        .values({ n: 1 })
        .execute()
        .catch((e: unknown) => (failure = e)),
    );
    const took = performance.now() - started;
    assert.ok(failure instanceof DatabaseLockedError, String(failure));
    assert.equal((failure.cause as { code?: string }).code, 'SQLITE_BUSY');
    assert.ok(busyReason(failure), 'answered as busy');
    assert.ok(took >= 300 && took < 1_000, `failed after ${took} ms`);
    // A few ms on a quiet machine, up to ~150 on a loaded one; SQLite's busy_timeout slept through the whole wait.
    assert.ok(stall < 250, `the event loop stalled ${stall} ms`);
  } finally {
    other.exec('ROLLBACK');
  }
  assert.deepEqual(await db.selectFrom('t').selectAll().execute(), [], 'nothing was written');
});

test('reads run while a write waits, and the write goes through once the lock is released', async () => {
  other.exec('BEGIN IMMEDIATE');
  const write = db.insertInto('t').values({ n: 2 }).execute();
  // The waiting write does not keep the one connection: a read answers meanwhile.
  const read = await db.selectFrom('t').selectAll().execute();
  assert.deepEqual(read, []);
  setTimeout(() => other.exec('COMMIT'), 100);
  await write;
  assert.deepEqual(await db.selectFrom('t').selectAll().execute(), [{ n: 2 }]);
});

test('a transaction takes the write lock when it begins, so a held lock can only refuse it before anything ran', async () => {
  other.exec('BEGIN IMMEDIATE');
  let ran = false;
  try {
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        ran = true;
        await tx.insertInto('t').values({ n: 3 }).execute();
      }),
      DatabaseLockedError,
    );
  } finally {
    other.exec('ROLLBACK');
  }
  assert.equal(ran, false, 'the transaction body never started');
  await db.transaction().execute(async (tx) => {
    // Inside: the lock is ours, so the other connection cannot write.
    assert.throws(() => other.exec('INSERT INTO t VALUES (9)'), /locked|busy/i);
    await tx.insertInto('t').values({ n: 4 }).execute();
  });
  assert.deepEqual((await sql<{ n: number }>`SELECT n FROM t ORDER BY n`.execute(db)).rows, [{ n: 2 }, { n: 4 }]);
});

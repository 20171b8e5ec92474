import assert from 'node:assert/strict';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { withStatementCache } from './statement-cache.js';

test('each SQL text is prepared once, and a reused statement answers for its new parameters', () => {
  const raw = new BetterSqlite3(':memory:');
  let compiled = 0;
  const prepare = raw.prepare.bind(raw);
  raw.prepare = ((sql: string) => {
    compiled += 1;
    return prepare(sql);
  }) as typeof raw.prepare;
  const db = withStatementCache(raw);
  db.prepare('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)').run([]);
  const insert = 'INSERT INTO t (id, name) VALUES (?, ?)';
  db.prepare(insert).run([1, 'one']);
  db.prepare(insert).run([2, 'two']);
  assert.throws(() => db.prepare(insert).run([2, 'again']), /UNIQUE/);
  db.prepare(insert).run([3, 'three']);
  const select = 'SELECT name FROM t WHERE id = ?';
  assert.deepEqual(db.prepare(select).all([2]), [{ name: 'two' }]);
  assert.deepEqual(db.prepare(select).all([3]), [{ name: 'three' }]);
  assert.equal(compiled, 3, 'create, insert and select each compiled once');
  db.close();
});

test('the least recently used statement leaves when the cache is full', () => {
  const raw = new BetterSqlite3(':memory:');
  const seen: string[] = [];
  const prepare = raw.prepare.bind(raw);
  raw.prepare = ((sql: string) => {
    seen.push(sql);
    return prepare(sql);
  }) as typeof raw.prepare;
  const db = withStatementCache(raw, 2);
  db.prepare('SELECT 1').all([]);
  db.prepare('SELECT 2').all([]);
  db.prepare('SELECT 1').all([]); // 1 is now the most recent
  db.prepare('SELECT 3').all([]); // evicts 2
  db.prepare('SELECT 1').all([]); // still cached
  db.prepare('SELECT 2').all([]); // compiled again
  assert.deepEqual(seen, ['SELECT 1', 'SELECT 2', 'SELECT 3', 'SELECT 2']);
  db.close();
});

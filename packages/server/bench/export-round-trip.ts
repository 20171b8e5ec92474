/**
 * How long export and import take at size: `--entries` entries with history, captured turns and
 * trash seeded on SQLite, exported, imported into a fresh Cairn on PostgreSQL, exported from there,
 * imported into a fresh SQLite, and the first file imported again on PostgreSQL (all unchanged).
 * Each step's wall time; the files are checked equal, as test/e2e/export-round-trip.test.ts checks
 * them on fewer entries.
 *
 *   npm run bench:export -w @cairn/server -- [--entries 10000] [--database-url <postgres server url>]
 *     (CAIRN_TEST_DATABASE_URL when --database-url is not given; a throwaway database is made on it)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { importFile } from '../src/domain/import.js';
import { comparable, createPeople, exportAll, fileLines, seedMemory } from '../src/testing/export-fixtures.js';
import { startTestCairn, type TestCairn } from '../src/testing/test-cairn.js';

const { values } = parseArgs({
  options: { entries: { type: 'string', default: '10000' }, 'database-url': { type: 'string' } },
});
const bulk = Number(values.entries);
if (!Number.isInteger(bulk) || bulk < 1)
  throw new Error(`--entries must be a whole number above 0, not ${values.entries}`);
const postgresServerUrl = values['database-url'] ?? process.env.CAIRN_TEST_DATABASE_URL;
if (!postgresServerUrl)
  throw new Error(
    'Give --database-url <postgres server url> (or set CAIRN_TEST_DATABASE_URL): the round trip goes through PostgreSQL',
  );

const cairns: TestCairn[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cairn-export-bench-'));
const timed = async <T>(what: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const t = performance.now();
  const value = await what();
  return { value, ms: performance.now() - t };
};
try {
  const tag = randomBytes(4).toString('hex');
  const start = async (options: Parameters<typeof startTestCairn>[0]) => {
    const cairn = await startTestCairn(options);
    cairns.push(cairn);
    return cairn;
  };
  const sqliteA = await start({});
  const people = await createPeople(sqliteA.cairn, tag);
  const seeded = await timed(() => seedMemory(sqliteA.cairn, people, bulk));
  console.log(`seeded ${bulk} entries on SQLite in ${(seeded.ms / 1000).toFixed(1)} s`);

  const move = async (from: TestCairn, to: TestCairn, name: string) => {
    const exported = await timed(() => exportAll(from.cairn));
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, exported.value);
    await createPeople(to.cairn, tag);
    const imported = await timed(() => importFile(to.cairn.domain, fileLines(file)));
    console.log(
      `${name}: export ${(exported.ms / 1000).toFixed(2)} s (${from.cairn.store.dialect}), import ${(imported.ms / 1000).toFixed(2)} s (${to.cairn.store.dialect})`,
    );
    return { text: exported.value, file };
  };
  const postgresB = await start({ postgresServerUrl });
  const first = await move(sqliteA, postgresB, 'SQLite → PostgreSQL');
  const sqliteC = await start({});
  const second = await move(postgresB, sqliteC, 'PostgreSQL → SQLite');
  assert.deepEqual(comparable(second.text), comparable(first.text), 'PostgreSQL exports what SQLite exported');
  const again = await timed(() => importFile(postgresB.cairn.domain, fileLines(first.file)));
  assert.equal(again.value.entries.unchanged, bulk + 7);
  console.log(`the same file again on PostgreSQL (all unchanged): ${(again.ms / 1000).toFixed(2)} s`);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  for (const c of cairns) await c.close();
  rmSync(dir, { recursive: true, force: true });
}

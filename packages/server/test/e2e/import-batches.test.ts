// An import writes each datapack in transactions of at most IMPORT_BATCH_ENTRIES entries, so it never
// holds SQLite's write lock for long (a running server's writes get their turn between them).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { IMPORT_BATCH_ENTRIES, importFile } from '../../src/domain/import.js';
import type { DatapackImport } from '../../src/store/transfer-types.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createPeople, exportAll, fileLines, seedMemory } from '../../src/testing/export-fixtures.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const BULK = IMPORT_BATCH_ENTRIES * 2 + 100;
const cairns: TestCairn[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cairn-import-batches-'));
after(async () => {
  for (const c of cairns) await c.close();
  rmSync(dir, { recursive: true, force: true });
});

test(`a datapack of ${BULK} entries is imported in batches: the first creates the datapack, each is whole, a second run changes nothing`, async () => {
  const tag = randomBytes(4).toString('hex');
  const source = await startTestCairn();
  cairns.push(source);
  await seedMemory(source.cairn, await createPeople(source.cairn, tag), BULK);
  const file = join(dir, 'export.jsonl');
  writeFileSync(file, await exportAll(source.cairn));

  const target = await startTestCairn();
  cairns.push(target);
  await createPeople(target.cairn, tag);
  const store = target.cairn.store;
  const write = store.importDatapack.bind(store);
  const seen: DatapackImport[] = [];
  store.importDatapack = async (batch) => {
    seen.push(batch);
    return write(batch);
  };
  const report = await importFile(target.cairn.domain, fileLines(file));
  assert.equal(report.entries.created, BULK + 7, JSON.stringify(report));
  const bulk = seen.filter((b) => b.datapack.name === 'Bulk');
  assert.deepEqual(
    bulk.map((b) => [b.mode, b.inserts.length]),
    [
      ['create', IMPORT_BATCH_ENTRIES],
      ['keep', IMPORT_BATCH_ENTRIES],
      ['keep', 100],
    ],
  );
  assert.ok(seen.every((b) => b.inserts.length + b.updates.length <= IMPORT_BATCH_ENTRIES));
  const again = await importFile(target.cairn.domain, fileLines(file));
  assert.equal(again.entries.unchanged, BULK + 7, JSON.stringify(again));
});

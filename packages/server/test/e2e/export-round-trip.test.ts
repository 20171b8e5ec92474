import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { importFile } from '../../src/domain/import.js';
import { comparable, createPeople, exportAll, fileLines, seedMemory } from '../../src/testing/export-fixtures.js';
import { postgresTestUrl } from '../../src/testing/postgres.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const pg = postgresTestUrl();
// Enough to span export's pages of 1,000 entries (and import's progress every 1,000) with a part page
// over; how long 10,000 take is `npm run bench:export -w @cairn/server` (docs/benchmarks.md).
const BULK = 2_500;

describe('export → import on the other backend → export gives the same file (SQLite → PostgreSQL → SQLite)', {
  skip: 'skip' in pg ? pg.skip : undefined,
}, () => {
  const cairns: TestCairn[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'cairn-export-'));
  after(async () => {
    for (const c of cairns) await c.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`${BULK} entries with their history, turns and trash survive both moves; a second import changes nothing`, async () => {
    const tag = randomBytes(4).toString('hex');
    const sqliteA = await startTestCairn({});
    cairns.push(sqliteA);
    const people = await createPeople(sqliteA.cairn, tag);
    let t = Date.now();
    await seedMemory(sqliteA.cairn, people, BULK);
    console.log(`# seeded ${BULK} entries on SQLite in ${Date.now() - t} ms`);

    const move = async (from: TestCairn, to: TestCairn, name: string) => {
      t = Date.now();
      const text = await exportAll(from.cairn);
      const exportMs = Date.now() - t;
      const file = join(dir, `${name}.jsonl`);
      writeFileSync(file, text);
      await createPeople(to.cairn, tag);
      t = Date.now();
      const report = await importFile(to.cairn.domain, fileLines(file));
      console.log(
        `# ${name}: export ${exportMs} ms (${from.cairn.store.dialect}), import ${Date.now() - t} ms (${to.cairn.store.dialect}), ${text.split('\n').length - 1} lines`,
      );
      return { text, file, report };
    };

    const postgresB = await startTestCairn({ postgresServerUrl: 'url' in pg ? pg.url : undefined });
    cairns.push(postgresB);
    const first = await move(sqliteA, postgresB, 'sqlite-to-postgres');
    assert.equal(first.report.entries.created, BULK + 7, JSON.stringify(first.report));
    assert.deepEqual(first.report.problems, []);
    assert.equal(first.report.datapacks.skipped, 0);

    const sqliteC = await startTestCairn({});
    cairns.push(sqliteC);
    const second = await move(postgresB, sqliteC, 'postgres-to-sqlite');
    assert.deepEqual(comparable(second.text), comparable(first.text), 'PostgreSQL exports what SQLite exported');
    const third = await exportAll(sqliteC.cairn);
    assert.deepEqual(comparable(third), comparable(first.text), 'and back on SQLite it is still the same');

    const lines = first.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const rotated = lines.find((l) => l.title === 'Deploy rotation');
    assert.deepEqual(
      rotated.history.map((v: { change: string }) => v.change),
      ['create', 'update', 'delete', 'restore'],
      'every version travels',
    );
    const turn = lines.find((l) => l.turn?.speaker === 'Claude');
    assert.deepEqual(turn.turn, {
      user: people.member.email,
      turnId: `turn-2-${tag}`,
      at: '2026-01-02T03:04:05.678Z',
      sessionId: 'sess-1',
      speaker: 'Claude',
      role: 'assistant',
    });
    assert.ok(
      lines.some((l) => l.type === 'datapack' && l.name === 'Scratch' && l.deletedAt),
      'a datapack in the trash travels with its deleted state',
    );
    assert.ok(lines.some((l) => l.type === 'entry' && l.title === 'Gone soon' && l.deletedAt));

    t = Date.now();
    const again = await importFile(postgresB.cairn.domain, fileLines(first.file));
    console.log(`# re-import of the same file on PostgreSQL: ${Date.now() - t} ms`);
    assert.deepEqual(again.entries, { created: 0, updated: 0, unchanged: BULK + 7, skipped: 0 });
    assert.equal(again.datapacks.created + again.datapacks.updated, 0);
    assert.equal(again.versions, 0);
    assert.deepEqual(
      comparable(await exportAll(postgresB.cairn)),
      comparable(first.text),
      'the second import changed nothing',
    );
  });
});

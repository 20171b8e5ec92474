import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { runCli } from '../../src/testing/run-cli.js';
import type { TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';
import {
  type ExportJourney,
  freshCopyOf,
  rowCounts as rowCountsOf,
  startExportJourney,
  writeExportFile,
} from './cli-export-import.fixture.js';

runFileOnEachBackend();

let journey: ExportJourney;
let server: TestCairn;
let tenant: TestTenant;
let dir: string;
let exported: Record<string, unknown>[];

/** The real command, in its own process, on the test Cairn's database. */
const cairn = (...args: string[]) => runCli(server, ...args);
const rowCounts = () => rowCountsOf(server);

const writeExport = (name: string, lines: Record<string, unknown>[], end?: 'count' | 'none') =>
  writeExportFile(dir, name, lines, end);
const freshCopy = () => freshCopyOf(exported);

before(async () => {
  journey = await startExportJourney();
  ({ server, tenant, dir, exported } = journey);
});
after(() => journey?.close());

describe('cairn export and cairn import', () => {
  test('export writes a 0600 file: header, datapacks, entries with every version, end line', async () => {
    assert.equal(statSync(join(dir, 'member.jsonl')).mode & 0o777, 0o600);
    assert.equal(exported[0]!.format, 'cairn-export');
    const checklist = exported.find((l) => l.title === 'Release checklist') as {
      history: { version: number; change: string }[];
      createdBy: string;
    };
    assert.deepEqual(
      checklist.history.map((v) => v.change),
      ['create', 'update'],
    );
    assert.equal(checklist.createdBy, tenant.member.email, 'people by email, not id');
    assert.deepEqual(exported.at(-1), {
      type: 'end',
      datapacks: exported.filter((l) => l.type === 'datapack').length,
      entries: 2,
      usage: 0,
    });
  });

  test('--dry-run reports what it would create and writes nothing', async () => {
    const file = writeExport('dry', freshCopy());
    const before = await rowCounts();
    const dry = await cairn('import', file, '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^Dry run: nothing was written/);
    assert.match(dry.stdout, /Entries: 2 created, 0 updated, 0 unchanged, 0 skipped \(3 versions written\)/);
    assert.deepEqual(await rowCounts(), before);
  });

  test('importing the same file twice: the second time changes nothing', async () => {
    const file = writeExport('twice', freshCopy());
    const before = await rowCounts();
    const first = await cairn('import', file);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /Entries: 2 created, 0 updated, 0 unchanged, 0 skipped \(3 versions written\)/);
    const afterFirst = await rowCounts();
    assert.deepEqual(afterFirst, { ...before, entries: before.entries + 2, versions: before.versions + 3 });
    const second = await cairn('import', file);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /Datapacks: 0 created, 0 updated, \d+ unchanged, 0 skipped/);
    assert.match(second.stdout, /Entries: 0 created, 0 updated, 2 unchanged, 0 skipped \(0 versions written\)/);
    assert.deepEqual(await rowCounts(), afterFirst);
    const imported = await server.cairn.store.listAuditEvents({ kind: 'datapack.imported', limit: 10 });
    assert.ok(
      imported.some((e) => e.credential?.type === 'cli' && /2 entries created/.test(e.target?.name ?? '')),
      'the audit trail records the operator’s import',
    );
  });

  test('a malformed line is named by number and nothing before it is imported', async () => {
    const file = writeExport('malformed', freshCopy());
    const lines = readFileSync(file, 'utf8').split('\n');
    const entryAt = lines.findIndex((l) => l.includes('"type":"entry"'));
    lines.splice(entryAt + 1, 0, '{"type":"entry", "id": oops}');
    writeFileSync(file, lines.join('\n'));
    const before = await rowCounts();
    const answer = await cairn('import', file);
    assert.equal(answer.code, 1);
    assert.match(answer.stderr, new RegExp(`Line ${entryAt + 2}: not valid JSON .*Nothing was imported`));
    assert.deepEqual(await rowCounts(), before, 'the valid entry before the bad line was not written either');
  });
});

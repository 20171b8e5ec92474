// `cairn export --format markdown` and what `cairn import` refuses in a folder or a file of any size:
// the heaviest of the export journeys, apart from cli-export-import.test.ts so that neither file
// takes minutes on a loaded machine.
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { runCli } from '../../src/testing/run-cli.js';
import { type ExportJourney, rowCounts, startExportJourney } from './cli-export-import.fixture.js';

runFileOnEachBackend();

let journey: ExportJourney;
before(async () => {
  journey = await startExportJourney();
});
after(() => journey?.close());
const cairn = (...args: string[]) => runCli(journey.server, ...args);

describe('cairn export --format markdown and cairn import', () => {
  test('--format markdown writes one file per entry that cairn import FOLDER reads back to the same entries', async () => {
    const folder = join(journey.dir, 'markdown');
    const made = await cairn('export', '--user', journey.tenant.member.email, '--format', 'markdown', '--out', folder);
    assert.equal(made.code, 0, made.stderr);
    const ids = journey.exported.filter((l) => l.type === 'entry').map((l) => String(l.id));
    const before = await Promise.all(ids.map((id) => journey.server.cairn.store.getEntry(id)));
    const personal = readdirSync(folder).find((d) => d.startsWith('personal--'))!;
    const checklist = journey.exported.find((l) => l.title === 'Release checklist')!.id;
    const file = readdirSync(join(folder, personal)).find((f) => f === `release-checklist--${checklist}.md`)!;
    const text = readFileSync(join(folder, personal, file), 'utf8');
    assert.match(text, /^---\nid: "ent_[a-z0-9]+"\nkind: "note"\ntitle: "Release checklist"\n/);
    assert.ok(text.endsWith('\n---\nTag, build, sign, publish, announce.'), 'the content is the body, as it is');

    await journey.server.cairn.store.db.deleteFrom('entry').where('id', 'in', ids).execute();
    const back = await cairn('import', folder);
    assert.equal(back.code, 0, back.stderr);
    assert.match(
      back.stdout,
      /Entries: 2 created, 0 updated, \d+ unchanged, 0 skipped \(2 versions written\)/,
      'the two removed come back; what earlier tests imported is unchanged',
    );
    const after = await Promise.all(ids.map((id) => journey.server.cairn.store.getEntry(id)));
    assert.deepEqual(after, before);
    const again = await cairn('import', folder);
    assert.match(again.stdout, /Entries: 0 created, 0 updated, \d+ unchanged, 0 skipped/);
  });

  test('a file with no line break (cairn import /dev/zero) or a Markdown file with an endless line is refused naming the line, without a stack trace', async () => {
    const rows = await rowCounts(journey.server);
    const zero = await cairn('import', '/dev/zero');
    assert.equal(zero.code, 1, zero.stderr);
    assert.match(
      zero.stderr,
      /Line 1 of \/dev\/zero is longer than 64 MB without a line break: it is not a file cairn export wrote\. Nothing was imported/,
    );
    assert.doesNotMatch(zero.stderr, /RangeError|\n\s+at /);
    const folder = join(journey.dir, 'markdown-long');
    const made = await cairn('export', '--user', journey.tenant.member.email, '--format', 'markdown', '--out', folder);
    assert.equal(made.code, 0, made.stderr);
    const personal = readdirSync(folder).find((d) => d.startsWith('personal--'))!;
    const entryFile = readdirSync(join(folder, personal)).find((f) => f !== '_datapack.md')!;
    appendFileSync(join(folder, personal, entryFile), `\nshort line\n${'x'.repeat(64 * 1024 * 1024 + 1)}`);
    const long = await cairn('import', folder);
    assert.equal(long.code, 1, long.stderr);
    const lines = readFileSync(join(folder, personal, entryFile), 'utf8').split('\n').length;
    assert.ok(long.stderr.includes(`Line ${lines} of ${join(personal, entryFile)} is longer than 64 MB`), long.stderr);
    assert.doesNotMatch(long.stderr, /RangeError|\n\s+at /);
    assert.deepEqual(await rowCounts(journey.server), rows, 'nothing was written');
  });
});

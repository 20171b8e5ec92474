import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLANTED_SECRETS } from '@cairn/contract/testing/planted-secrets';
import { runCli } from '../../src/testing/run-cli.js';
import type { TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';
import { type ExportJourney, rowCounts as rowCountsOf, startExportJourney } from './cli-export-import.fixture.js';

const AWS_KEY = PLANTED_SECRETS.find((p) => p.kind === 'aws-access-key')!.secret;

let journey: ExportJourney;
let server: TestCairn;
let tenant: TestTenant;
let dir: string;
let exported: Record<string, unknown>[];

/** The real command, in its own process, on the test Cairn's database. */
const cairn = (...args: string[]) => runCli(server, ...args);
const rowCounts = () => rowCountsOf(server);

/** Writes an export file from lines; the end line is recounted unless `end` says otherwise. */
function writeExport(name: string, lines: Record<string, unknown>[], end: 'count' | 'none' = 'count'): string {
  const body = lines.filter((l) => l.type !== 'end');
  if (end === 'count') body.push({ type: 'end', datapacks: body.filter((l) => l.type === 'datapack').length, entries: body.filter((l) => l.type === 'entry').length });
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, `${body.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return path;
}

/** The member's export with every entry given a new id: entries this Cairn does not hold yet. */
function freshCopy(): Record<string, unknown>[] {
  return exported.map((l) => (l.type === 'entry' ? { ...l, id: `ent_${randomBytes(10).toString('hex')}` } : l));
}

before(async () => {
  journey = await startExportJourney();
  ({ server, tenant, dir, exported } = journey);
});
after(() => journey?.close());

describe('cairn export and cairn import', () => {
  test('export writes a 0600 file: header, datapacks, entries with every version, end line', async () => {
    assert.equal(statSync(join(dir, 'member.jsonl')).mode & 0o777, 0o600);
    assert.equal(exported[0]!.format, 'cairn-export');
    const checklist = exported.find((l) => l.title === 'Release checklist') as { history: { version: number; change: string }[]; createdBy: string };
    assert.deepEqual(
      checklist.history.map((v) => v.change),
      ['create', 'update'],
    );
    assert.equal(checklist.createdBy, tenant.member.email, 'people by email, not id');
    assert.deepEqual(exported.at(-1), { type: 'end', datapacks: exported.filter((l) => l.type === 'datapack').length, entries: 2 });
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

  test('a NUL character in content is refused naming the line and field; a cut-off file is refused', async () => {
    const copy = freshCopy();
    const at = copy.findIndex((l) => l.type === 'entry');
    copy[at] = { ...copy[at], content: 'before\u0000after' };
    const before = await rowCounts();
    const nul = await cairn('import', writeExport('nul', copy));
    assert.equal(nul.code, 1);
    assert.match(nul.stderr, new RegExp(`Line ${at + 1}: content contains a NUL character`));
    const cut = await cairn('import', writeExport('cut', freshCopy(), 'none'));
    assert.equal(cut.code, 1);
    assert.match(cut.stderr, /without its end line: it was cut off/);
    assert.deepEqual(await rowCounts(), before);
  });

  test('secrets in an imported file are redacted, in the entry and its history', async () => {
    const copy = freshCopy().filter((l) => l.type !== 'entry' || l.title === 'Release checklist');
    const at = copy.findIndex((l) => l.type === 'entry');
    const entry = copy[at] as { id: string; content: string; history: { content: string }[] };
    entry.content = `Sign with ${AWS_KEY}`;
    for (const v of entry.history) v.content = `Sign with ${AWS_KEY}`;
    const answer = await cairn('import', writeExport('secret', copy));
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(answer.stdout, /Secrets redacted on the way in: aws-access-key ×3/);
    const stored = await server.cairn.store.getEntry(entry.id);
    assert.equal(stored?.content, 'Sign with [redacted:aws-access-key]');
    const history = await server.cairn.store.listEntryVersions(entry.id);
    assert.ok(history.every((v) => !v.content.includes(AWS_KEY)));
  });

  test('a datapack whose owner does not exist here is reported and skipped', async () => {
    const copy = freshCopy().map((l) => (l.type === 'datapack' && l.scope === 'personal' ? { ...l, owner: { user: 'nobody@example.test' } } : l));
    const before = await rowCounts();
    const answer = await cairn('import', writeExport('nobody', copy));
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(answer.stdout, /Skipped datapack "Personal" and its entries: user nobody@example.test does not exist here/);
    assert.match(answer.stdout, /Entries: 0 created, 0 updated, 0 unchanged, 2 skipped/);
    assert.deepEqual(await rowCounts(), before);
  });

  test('export --org exports the organization; unknown names and missing flags are clear errors', async () => {
    const out = join(dir, 'org.jsonl');
    const org = await cairn('export', '--org', tenant.orgName, '--out', out);
    assert.equal(org.code, 0, org.stderr);
    const names = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'datapack')
      .map((l) => l.name);
    assert.deepEqual(names, [tenant.orgName]);
    // Five refusals that write nothing, run at once: each command is a process that takes seconds to start.
    const refusals = await Promise.all([
      cairn('export', '--org', 'No Such Org', '--out', out),
      cairn('export'),
      cairn('import'),
      cairn('import', join(dir, 'missing.jsonl')),
      cairn('export', '--out', join(dir, 'no-such-folder', 'x.jsonl')),
    ]);
    const expected = [/No organization named "No Such Org"/, /--out FILE.jsonl is required/, /Name the file to import/, /Nothing at .*missing\.jsonl: pass the file/, /no-such-folder does not exist/];
    for (const [k, refusal] of refusals.entries()) assert.match(refusal.stderr, expected[k]!);
  });
});

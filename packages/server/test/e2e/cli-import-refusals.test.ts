// What `cairn import` refuses or changes on the way in (NUL characters, cut-off files, secrets, unknown
// owners) and `cairn export --org`; the other export journeys are cli-export-import.test.ts and
// cli-export-markdown.test.ts, apart so that no file takes minutes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLANTED_SECRETS } from '@cairn/contract/testing/planted-secrets';
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

const AWS_KEY = PLANTED_SECRETS.find((p) => p.kind === 'aws-access-key')!.secret;

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

describe('cairn import refusals and cairn export --org', () => {
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
    const copy = freshCopy().map((l) =>
      l.type === 'datapack' && l.scope === 'personal' ? { ...l, owner: { user: 'nobody@example.test' } } : l,
    );
    const before = await rowCounts();
    const answer = await cairn('import', writeExport('nobody', copy));
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(
      answer.stdout,
      /Skipped datapack "Personal" and its entries: user nobody@example.test does not exist here/,
    );
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
    const expected = [
      /No organization named "No Such Org"/,
      /--out FILE.jsonl is required/,
      /Name the file to import/,
      /Nothing at .*missing\.jsonl: pass the file/,
      /no-such-folder does not exist/,
    ];
    for (const [k, refusal] of refusals.entries()) assert.match(refusal.stderr, expected[k]!);
  });
});

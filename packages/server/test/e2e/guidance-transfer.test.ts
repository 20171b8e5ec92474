// An export carries where rules apply and which replaced which, in JSON Lines and in Markdown, and an import restores both.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readMarkdownFolder, writeMarkdownFolder } from '../../src/cli/markdown-folder.js';
import { loadAccess } from '../../src/domain/access.js';
import { getEntry, saveEntry } from '../../src/domain/entries.js';
import { getGuidance } from '../../src/domain/guidance.js';
import { importFile } from '../../src/domain/import.js';
import type { Cairn } from '../../src/runtime/open-cairn.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createPeople, exportAll } from '../../src/testing/export-fixtures.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const cairns: TestCairn[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cairn-guidance-export-'));
after(async () => {
  for (const c of cairns) await c.close();
  rmSync(dir, { recursive: true, force: true });
});

const asOwner = (cairn: Cairn, userId: string) =>
  loadAccess(cairn.domain, { userId, client: null, via: 'cli', scope: 'read-write' });

test('applies, supersedes and replacedBy survive export and import, as JSON Lines and as Markdown', async () => {
  const tag = randomBytes(4).toString('hex');
  const source = await startTestCairn();
  cairns.push(source);
  const people = await createPeople(source.cairn, tag);
  const access = await asOwner(source.cairn, people.owner.id);
  const old = await saveEntry(source.cairn.domain, access, {
    datapack: people.orgName,
    kind: 'policy',
    title: 'One reviewer is enough',
    content: 'A single approval merges a pull request.',
  });
  const newer = await saveEntry(source.cairn.domain, access, {
    datapack: people.orgName,
    kind: 'policy',
    title: 'Two reviewers to merge',
    content: 'Every pull request needs two approvals, one from a code owner.',
    applies: {
      always: true,
      files: ['**/*.ts'],
      projects: ['ledger-service'],
      when: 'Writing or reviewing TypeScript in the ledger.',
    },
    supersedes: [old.entry.id],
  });
  const text = await exportAll(source.cairn);
  const line = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((l) => l.id === newer.entry.id);
  assert.deepEqual(line.applies, {
    always: true,
    files: ['**/*.ts'],
    projects: ['ledger-service'],
    when: 'Writing or reviewing TypeScript in the ledger.',
  });
  assert.deepEqual(line.supersedes, [old.entry.id]);

  const check = async (target: Cairn, ownerId: string, how: string) => {
    const a = await asOwner(target, ownerId);
    const moved = (await getEntry(target.domain, a, newer.entry.id)).entry;
    assert.deepEqual(
      moved.applies,
      {
        always: true,
        files: ['**/*.ts'],
        projects: ['ledger-service'],
        when: 'Writing or reviewing TypeScript in the ledger.',
      },
      how,
    );
    assert.deepEqual(moved.supersedes, [old.entry.id], how);
    assert.equal((await getEntry(target.domain, a, old.entry.id)).entry.replacedBy, newer.entry.id, how);
    const g = await getGuidance(target.domain, a, { task: 'one reviewer is enough to merge' });
    const ids = g.levels.flatMap((l) => l.items.map((i) => i.entry.id));
    assert.ok(ids.includes(newer.entry.id) && !ids.includes(old.entry.id), how);
  };

  const jsonl = await startTestCairn();
  cairns.push(jsonl);
  const jsonlPeople = await createPeople(jsonl.cairn, tag);
  const lines = text.split('\n').filter(Boolean);
  const report = await importFile(jsonl.cairn.domain, () => lines);
  assert.deepEqual(report.problems, []);
  await check(jsonl.cairn, jsonlPeople.owner.id, 'JSON Lines');

  const folder = join(dir, 'markdown');
  await writeMarkdownFolder(
    (async function* () {
      yield text;
    })(),
    folder,
  );
  const pack = readdirSync(folder).find(
    (f) => !f.endsWith('.json') && readdirSync(join(folder, f)).some((x) => x.includes(newer.entry.id)),
  )!;
  const file = readdirSync(join(folder, pack)).find((x) => x.includes(newer.entry.id))!;
  assert.match(
    readFileSync(join(folder, pack, file), 'utf8'),
    /^applies: \{"always":true,"files":\["\*\*\/\*\.ts"\],"projects":\["ledger-service"\],"when":"Writing or reviewing TypeScript in the ledger\."\}$/m,
  );
  const markdown = await startTestCairn();
  cairns.push(markdown);
  const mdLines = readMarkdownFolder(folder);
  const mdPeople = await createPeople(markdown.cairn, tag);
  const mdReport = await importFile(markdown.cairn.domain, () => mdLines);
  assert.deepEqual(mdReport.problems, []);
  await check(markdown.cairn, mdPeople.owner.id, 'Markdown');
});

test('an export line with an invalid glob is refused before anything is imported', async () => {
  const tag = randomBytes(4).toString('hex');
  const source = await startTestCairn();
  cairns.push(source);
  const people = await createPeople(source.cairn, tag);
  const access = await asOwner(source.cairn, people.owner.id);
  const saved = await saveEntry(source.cairn.domain, access, {
    datapack: people.orgName,
    kind: 'policy',
    title: 'Schema changes',
    content: 'Expand, then contract.',
    applies: { files: ['migrations/**'] },
  });
  const broken = (await exportAll(source.cairn)).replace('"migrations/**"', '"migrations/[**"');
  const target = await startTestCairn();
  cairns.push(target);
  const targetPeople = await createPeople(target.cairn, tag);
  await assert.rejects(
    importFile(target.cairn.domain, () => broken.split('\n').filter(Boolean)),
    (e: Error) => /not a valid glob/.test(e.message),
  );
  const a = await asOwner(target.cairn, targetPeople.owner.id);
  await assert.rejects(getEntry(target.cairn.domain, a, saved.entry.id), /No entry/);
});

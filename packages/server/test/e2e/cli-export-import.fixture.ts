// The export journeys' Cairn (cli-export-import.test.ts, cli-import-refusals.test.ts, cli-export-markdown.test.ts): a tenant whose
// member holds two entries (one with two versions), exported once with the real `cairn export`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAccess } from '../../src/domain/access.js';
import { saveEntry, updateEntry } from '../../src/domain/entries.js';
import { runCli } from '../../src/testing/run-cli.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

export interface ExportJourney {
  server: TestCairn;
  tenant: TestTenant;
  /** A scratch folder, removed by close. */
  dir: string;
  /** The member's export, line by line. */
  exported: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startExportJourney(): Promise<ExportJourney> {
  const server = await startTestCairn();
  const tenant = await createTenant(server.cairn);
  const dir = mkdtempSync(join(tmpdir(), 'cairn-cli-export-'));
  const member = await loadAccess(server.cairn.domain, {
    userId: tenant.member.id,
    client: 'test',
    via: 'session',
    scope: 'read-write',
  });
  const first = await saveEntry(server.cairn.domain, member, {
    title: 'Release checklist',
    content: 'Tag, build, sign, publish.',
    tags: ['release'],
  });
  await updateEntry(server.cairn.domain, member, {
    id: first.entry.id,
    expectedVersion: 1,
    content: 'Tag, build, sign, publish, announce.',
  });
  await saveEntry(server.cairn.domain, member, {
    title: 'Editor preference',
    content: 'Two-space indentation everywhere.',
    kind: 'preference',
  });
  const out = join(dir, 'member.jsonl');
  const made = await runCli(server, 'export', '--user', tenant.member.email, '--out', out);
  assert.equal(made.code, 0, made.stderr);
  const exported = readFileSync(out, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  return {
    server,
    tenant,
    dir,
    exported,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Rows in the entry and history tables: what "nothing was written" is checked against. */
export async function rowCounts(server: TestCairn): Promise<{ entries: number; versions: number; datapacks: number }> {
  const count = async (table: 'entry' | 'entry_version' | 'datapack') =>
    Number(
      (
        await server.cairn.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { entries: await count('entry'), versions: await count('entry_version'), datapacks: await count('datapack') };
}

/** Writes an export file from lines; the end line is recounted unless `end` says otherwise. */
export function writeExportFile(
  dir: string,
  name: string,
  lines: Record<string, unknown>[],
  end: 'count' | 'none' = 'count',
): string {
  const body = lines.filter((l) => l.type !== 'end');
  if (end === 'count')
    body.push({
      type: 'end',
      datapacks: body.filter((l) => l.type === 'datapack').length,
      entries: body.filter((l) => l.type === 'entry').length,
    });
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, `${body.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return path;
}

/** The member's export with every entry given a new id: entries this Cairn does not hold yet. */
export function freshCopyOf(exported: Record<string, unknown>[]): Record<string, unknown>[] {
  return exported.map((l) => (l.type === 'entry' ? { ...l, id: `ent_${randomBytes(10).toString('hex')}` } : l));
}

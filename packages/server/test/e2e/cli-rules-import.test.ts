// `cairn rules import`: a repository holding every tool's rule files (nested folders, each activation
// mode) imported with the real CLI, checked entry by entry; again (nothing changes), changed, and
// from a second repository (one rule, two projects).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadAccess } from '../../src/domain/access.js';
import { createDatapack } from '../../src/domain/datapacks.js';
import { IMPORTED_TAG, sourceTag } from '../../src/domain/rules-import/plan.js';
import type { Applies, Entry } from '../../src/store/types.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { runCli } from '../../src/testing/run-cli.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const SECRET = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
const fm = (lines: string[], body: string) => `---\n${lines.join('\n')}\n---\n${body}\n`;

/** One repository with every format: path → file text. */
const REPO: Record<string, string> = {
  '.cursor/rules/always.mdc': fm(['alwaysApply: true'], '# Cursor always\n\nUse strict TypeScript.'),
  '.cursor/rules/ts.mdc': fm(['globs: src/**/*.ts, *.tsx', 'alwaysApply: false'], '# Cursor globs\n\nNo any.'),
  '.cursor/rules/sql/db.mdc': fm(['description: Writing SQL queries'], '# Cursor agent requested\n\nBind params.'),
  '.cursor/rules/manual.mdc': fm(['colour: red'], 'Ask before deleting files.'),
  'web/.cursor/rules/ui.mdc': fm(['globs:', '  - "components/**"'], '# Cursor nested\n\nUse the design tokens.'),
  'CLAUDE.md': `# Claude root\n\nRun npm test before committing. Token ${SECRET} must never leak.\n`,
  'api/CLAUDE.md': 'Every handler validates its input.\n',
  '.claude/rules/tests.md': fm(['paths:', '  - "tests/**"'], '# Claude paths\n\nOne assertion per behaviour.'),
  'AGENTS.md': '# Agents root\n\nKeep commits small.\n',
  'pkg/db/AGENTS.md': '# Agents nested\n\nMigrations are append-only.\n',
  '.github/copilot-instructions.md': '# Copilot always\n\nPrefer composition.\n',
  '.github/instructions/py/python.instructions.md': fm(
    ['applyTo: "**/*.py"', 'description: Python code'],
    '# Copilot applyTo\n\nType hints everywhere.',
  ),
  '.kiro/steering/product.md': fm(['inclusion: always'], '# Kiro always\n\nThe product is a ledger.'),
  '.kiro/steering/api.md': fm(
    ['inclusion: fileMatch', 'fileMatchPattern: ["api/**/*.ts", "openapi.yaml"]'],
    '# Kiro fileMatch\n\nDocument every endpoint.',
  ),
  '.kiro/steering/deploy.md': fm(
    ['inclusion: auto', 'description: Deploying the service'],
    '# Kiro auto\n\nBlue-green.',
  ),
  '.kiro/steering/manual.md': fm(['inclusion: manual'], '# Kiro manual\n\nOnly when asked.'),
  '.windsurf/rules/on.md': fm(['trigger: always_on'], '# Windsurf always\n\nBe concise.'),
  '.windsurf/rules/go.md': fm(['trigger: glob', 'globs: "**/*.go"'], '# Windsurf glob\n\nGofmt.'),
  '.devin/rules/review.md': fm(
    ['trigger: model_decision', 'description: Reviewing a pull request'],
    '# Devin model decision\n\nCheck tests.',
  ),
  '.continue/rules/rust.md': fm(['name: Continue globs', 'globs: "**/*.rs"'], 'Clippy clean.'),
  '.clinerules/db.md': fm(['paths:', '  - "db/**"'], '# Cline paths\n\nNo raw SQL.'),
  '.cursor/rules/bad-glob.mdc': fm(['globs: "src/[a-"'], '# Cursor bad glob\n\nStill a rule.'),
  '.kiro/steering/empty.md': fm(['inclusion: always'], ''),
  'README.md': '# Not a rule\n',
};

const A = (a: Partial<Applies>): Applies => ({ always: false, files: [], projects: [], ...a });
/** What each file becomes in project "alpha": its title and applies. */
const EXPECTED: Record<string, [string, Applies]> = {
  '.cursor/rules/always.mdc': ['Cursor always', A({ always: true })],
  '.cursor/rules/ts.mdc': ['Cursor globs', A({ files: ['src/**/*.ts', '*.tsx'], projects: ['alpha'] })],
  '.cursor/rules/sql/db.mdc': ['Cursor agent requested', A({ projects: ['alpha'], when: 'Writing SQL queries' })],
  '.cursor/rules/manual.mdc': ['manual', A({ projects: ['alpha'] })],
  'web/.cursor/rules/ui.mdc': ['Cursor nested', A({ files: ['web/components/**'], projects: ['alpha'] })],
  'CLAUDE.md': ['Claude root', A({ always: true })],
  'api/CLAUDE.md': ['api CLAUDE', A({ files: ['api/**'], projects: ['alpha'] })],
  '.claude/rules/tests.md': ['Claude paths', A({ files: ['tests/**'], projects: ['alpha'] })],
  'AGENTS.md': ['Agents root', A({ always: true })],
  'pkg/db/AGENTS.md': ['Agents nested', A({ files: ['pkg/db/**'], projects: ['alpha'] })],
  '.github/copilot-instructions.md': ['Copilot always', A({ always: true })],
  '.github/instructions/py/python.instructions.md': [
    'Copilot applyTo',
    A({ files: ['**/*.py'], projects: ['alpha'], when: 'Python code' }),
  ],
  '.kiro/steering/product.md': ['Kiro always', A({ always: true })],
  '.kiro/steering/api.md': ['Kiro fileMatch', A({ files: ['api/**/*.ts', 'openapi.yaml'], projects: ['alpha'] })],
  '.kiro/steering/deploy.md': ['Kiro auto', A({ projects: ['alpha'], when: 'Deploying the service' })],
  '.kiro/steering/manual.md': ['Kiro manual', A({ projects: ['alpha'] })],
  '.windsurf/rules/on.md': ['Windsurf always', A({ always: true })],
  '.windsurf/rules/go.md': ['Windsurf glob', A({ files: ['**/*.go'], projects: ['alpha'] })],
  '.devin/rules/review.md': ['Devin model decision', A({ projects: ['alpha'], when: 'Reviewing a pull request' })],
  '.continue/rules/rust.md': ['Continue globs', A({ files: ['**/*.rs'], projects: ['alpha'] })],
  '.clinerules/db.md': ['Cline paths', A({ files: ['db/**'], projects: ['alpha'] })],
  '.cursor/rules/bad-glob.mdc': ['Cursor bad glob', A({ projects: ['alpha'] })],
};

function writeRepo(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

let server: TestCairn;
let tenant: TestTenant;
let dir: string;
let datapackId: string;
before(async () => {
  server = await startTestCairn();
  tenant = await createTenant(server.cairn);
  dir = mkdtempSync(join(tmpdir(), 'cairn-rules-import-'));
  const owner = await loadAccess(server.cairn.domain, {
    userId: tenant.owner.id,
    client: 'test',
    via: 'session',
    scope: 'read-write',
  });
  datapackId = (await createDatapack(server.cairn.domain, owner, { name: 'Rulebook', scope: 'organization' })).id;
  writeRepo(join(dir, 'alpha'), REPO);
});
after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cairn = (...args: string[]) => runCli(server, ...args);
const importRepo = (repo: string, ...more: string[]) =>
  cairn('rules', 'import', join(dir, repo), '--datapack', datapackId, '--user', tenant.owner.email, ...more);

async function imported(): Promise<Entry[]> {
  const ids = await server.cairn.store.filteredEntryIds({ datapackIds: [datapackId], tags: [IMPORTED_TAG] });
  return (await Promise.all([...ids].map((id) => server.cairn.store.getEntry(id)))).filter((e): e is Entry => !!e);
}
const byPath = (entries: Entry[], project: string, path: string) =>
  entries.find((e) => e.tags.includes(sourceTag(project, path)));

describe('cairn rules import', () => {
  test('--dry-run prints the preview and writes nothing', async () => {
    const r = await importRepo('alpha', '--dry-run');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Dry run: nothing was written\. Importing into "Rulebook" as project alpha would give:/);
    assert.match(r.stdout, /Rules: 22 created, 0 updated, 0 unchanged, 1 not mapped/);
    assert.match(
      r.stdout,
      /create\t\.cursor\/rules\/ts\.mdc "Cursor globs" \[files: src\/\*\*\/\*\.ts, \*\.tsx; projects: alpha\]/,
    );
    assert.equal((await imported()).length, 0);
  });

  test('every format, nested folder and activation mode becomes its rule; what is not mapped is reported', async () => {
    const r = await importRepo('alpha');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Rules: 22 created, 0 updated, 0 unchanged, 1 not mapped/);
    const entries = await imported();
    assert.equal(entries.length, 22);
    for (const [path, [title, applies]] of Object.entries(EXPECTED)) {
      const e = byPath(entries, 'alpha', path);
      assert.ok(e, `${path} was imported`);
      assert.equal(e.title, title, path);
      assert.equal(e.kind, 'standard', path);
      assert.deepEqual(e.applies, applies, path);
    }
    assert.equal(byPath(entries, 'alpha', '.cursor/rules/ts.mdc')!.content, 'No any.');
    const root = byPath(entries, 'alpha', 'CLAUDE.md')!;
    assert.ok(!root.content.includes(SECRET), 'the secret was redacted');
    assert.match(r.stdout, /Secrets redacted on the way in: /);
    // The not-mapped report, line by line.
    assert.match(r.stdout, /not mapped\t\.kiro\/steering\/empty\.md "empty"\n\t {2}the file holds no text\n/);
    assert.match(
      r.stdout,
      /\.cursor\/rules\/manual\.mdc[^\n]*\n\t {2}front matter key "colour" is not understood; it was left out\n\t {2}manual rule/,
    );
    assert.match(r.stdout, /\.kiro\/steering\/manual\.md[^\n]*\n\t {2}manual rule \(inclusion: manual\)/);
    assert.match(r.stdout, /bad-glob\.mdc[^\n]*\n\t {2}the glob "src\/\[a-" was left out/);
    assert.doesNotMatch(r.stdout, /README/, 'files of no tool are not looked at');
  });

  test('importing again changes nothing; a changed file is a new version of its rule', async () => {
    const versions = new Map((await imported()).map((e) => [e.id, e.version]));
    const again = await importRepo('alpha');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /Rules: 0 created, 0 updated, 22 unchanged, 1 not mapped/);
    assert.deepEqual(new Map((await imported()).map((e) => [e.id, e.version])), versions);

    writeFileSync(
      join(dir, 'alpha', '.cursor/rules/ts.mdc'),
      fm(['globs: src/**/*.ts', 'description: TypeScript'], '# Cursor globs\n\nNo any, ever.'),
    );
    const changed = await importRepo('alpha');
    assert.match(changed.stdout, /Rules: 0 created, 1 updated, 21 unchanged, 1 not mapped/);
    const e = byPath(await imported(), 'alpha', '.cursor/rules/ts.mdc')!;
    assert.equal(e.version, 2);
    assert.equal(e.content, 'No any, ever.');
    assert.deepEqual(e.applies, A({ files: ['src/**/*.ts'], projects: ['alpha'], when: 'TypeScript' }));
    assert.equal((await imported()).length, 22, 'no duplicate');
    assert.doesNotMatch(changed.stdout, /not in this folder/);
    mkdirSync(join(dir, 'empty'));
    const partial = await importRepo('empty', '--project', 'alpha', '--dry-run');
    assert.equal(
      partial.stdout.match(/^not in this folder\t/gm)?.length,
      16,
      'every rule of alpha but the always ones',
    );
  });

  test('the same rule in another repository is one rule with both projects', async () => {
    writeRepo(join(dir, 'beta-checkout'), {
      'pkg/db/AGENTS.md': REPO['pkg/db/AGENTS.md']!,
      '.kiro/steering/product.md': REPO['.kiro/steering/product.md']!,
      '.windsurf/rules/new.md': fm(['trigger: glob', 'globs: "*.java"'], '# Beta only\n\nJava 21.'),
    });
    const r = await importRepo('beta-checkout', '--project', 'beta');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /Rules: 1 created, 2 updated, 0 unchanged, 0 not mapped/,
      'the always rule is linked to its file in beta too (no project: it applies everywhere)',
    );
    const entries = await imported();
    assert.equal(entries.length, 23);
    const shared = byPath(entries, 'beta', 'pkg/db/AGENTS.md')!;
    assert.equal(shared.id, byPath(entries, 'alpha', 'pkg/db/AGENTS.md')!.id);
    assert.deepEqual(shared.applies, A({ files: ['pkg/db/**'], projects: ['alpha', 'beta'] }));
    assert.equal(byPath(entries, 'beta', '.kiro/steering/product.md')!.applies!.always, true);
    assert.match((await importRepo('beta-checkout', '--project', 'beta')).stdout, /0 created, 0 updated, 3 unchanged/);
    // The project defaults to the folder's name.
    const named = await importRepo('beta-checkout', '--dry-run');
    assert.match(named.stdout, /as project beta-checkout would give/);
  });

  test('export in each format, then import: the same rules come back', async () => {
    const alpha = (await imported()).filter((e) => !e.applies?.projects.length || e.applies.projects.includes('alpha'));
    assert.equal(alpha.length, 22);
    const exported: Record<string, [number, number]> = {
      cursor: [22, 0],
      kiro: [22, 0],
      copilot: [22, 0],
      claude: [16, 6],
      agents: [11, 11],
    };
    for (const [format, [rules, skipped]] of Object.entries(exported)) {
      const out = join(dir, `export-${format}`);
      const made = await cairn(
        'rules',
        'export',
        '--datapack',
        datapackId,
        '--user',
        tenant.member.email,
        '--format',
        format,
        '--out',
        out,
        '--project',
        'alpha',
      );
      assert.equal(made.code, 0, made.stderr);
      const files = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) =>
        statSync(join(out, f)).isFile(),
      );
      for (const f of files)
        assert.match(readFileSync(join(out, f), 'utf8'), /<!-- cairn rule ent_\w+: generated by Cairn/, f);
      assert.match(made.stdout, new RegExp(`\\(${rules} rules\\) as ${format}`), made.stdout);
      assert.equal(made.stdout.match(/^not exported\t/gm)?.length ?? 0, skipped, made.stdout);
      const back = await importRepo(`export-${format}`, '--project', 'alpha');
      assert.equal(back.code, 0, back.stderr);
      assert.match(
        back.stdout,
        new RegExp(`Rules: 0 created, 0 updated, ${rules} unchanged, 0 not mapped`),
        `${format}: ${back.stdout}`,
      );
    }
    assert.equal((await imported()).length, 23, 'no rule was added');
    // Into an empty datapack, a lossless format gives each rule back as it was.
    const owner = await loadAccess(server.cairn.domain, {
      userId: tenant.owner.id,
      client: 'test',
      via: 'session',
      scope: 'read-write',
    });
    for (const format of ['cursor', 'kiro', 'copilot']) {
      const fresh = (
        await createDatapack(server.cairn.domain, owner, { name: `Copy ${format}`, scope: 'organization' })
      ).id;
      const r = await cairn(
        'rules',
        'import',
        join(dir, `export-${format}`),
        '--datapack',
        fresh,
        '--user',
        tenant.owner.email,
        '--project',
        'alpha',
      );
      assert.match(r.stdout, /Rules: 22 created/, r.stdout);
      const ids = await server.cairn.store.filteredEntryIds({ datapackIds: [fresh], tags: [IMPORTED_TAG] });
      const copies = await Promise.all([...ids].map((id) => server.cairn.store.getEntry(id)));
      const shape = (e: Entry) =>
        JSON.stringify([
          e.title,
          e.content,
          e.kind,
          e.applies?.always,
          [...(e.applies?.files ?? [])].sort(),
          e.applies?.when,
        ]);
      assert.deepEqual(copies.map((e) => shape(e!)).sort(), alpha.map(shape).sort(), format);
    }
  });

  test('a user who may not write the datapack is refused and nothing is written', async () => {
    const before = (await imported()).length;
    for (const who of [tenant.member.email, tenant.outsider.email]) {
      const r = await cairn('rules', 'import', join(dir, 'alpha'), '--datapack', datapackId, '--user', who);
      assert.equal(r.code, 1, r.stdout);
      assert.match(
        r.stderr,
        /cairn: (Only organization admins can change "Rulebook"|No datapack with that id is visible to you)/,
      );
    }
    assert.equal((await imported()).length, before);
    const missing = await cairn('rules', 'import', join(dir, 'alpha'), '--user', tenant.owner.email);
    assert.match(missing.stderr, /--datapack is required/);
  });
});

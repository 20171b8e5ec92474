import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ruleFilesFrom, ruleFilesOfFolder, TOO_LARGE, textOf, unsafeName } from './rule-files.js';

const listed = (...paths: string[]) => paths.map((path) => ({ path, size: 10 }));

test('the single top folder is stripped and names the project; only candidate files are chosen', () => {
  const choice = ruleFilesFrom(
    listed(
      'acme-api-main/AGENTS.md',
      'acme-api-main/.cursor/rules/sql.mdc',
      'acme-api-main/.clinerules',
      'acme-api-main/docs/notes.txt',
      'acme-api-main/src/index.ts',
      'acme-api-main/node_modules/pkg/README.md',
      'acme-api-main/web/node_modules/x/AGENTS.md',
      'acme-api-main/',
      'acme-api-main/.cursor/',
    ),
  );
  assert.equal(choice.project, 'acme-api-main');
  assert.deepEqual(
    choice.chosen.map((c) => c.path),
    ['AGENTS.md', '.cursor/rules/sql.mdc', '.clinerules', 'docs/notes.txt'],
  );
  assert.deepEqual(choice.notRead, []);
});

test('files in no single top folder keep their paths and the fallback project', () => {
  const choice = ruleFilesFrom(listed('AGENTS.md', 'web/CLAUDE.md'), 'ledger');
  assert.equal(choice.project, 'ledger');
  assert.deepEqual(
    choice.chosen.map((c) => c.path),
    ['AGENTS.md', 'web/CLAUDE.md'],
  );
  assert.equal(ruleFilesFrom(listed('ledger/AGENTS.md', 'other/AGENTS.md'), 'x').project, 'x');
});

test('oversized candidates, unsafe names and repeated names are listed with why, never dropped', () => {
  const choice = ruleFilesFrom([
    { path: 'repo/AGENTS.md', size: 256 * 1024 },
    { path: 'repo/big.md', size: 256 * 1024 + 1 },
    { path: 'repo/big.bin', size: 10 * 1024 * 1024 },
    { path: 'repo/../evil.md', size: 1 },
    { path: '/etc/passwd.md', size: 1 },
    { path: '\\windows\\evil.md', size: 1 },
    { path: 'C:/evil.md', size: 1 },
    { path: 'repo/a\0b.md', size: 1 },
    { path: 'repo\\..\\up.md', size: 1 },
    { path: 'repo/AGENTS.md', size: 5 },
  ]);
  assert.equal(choice.project, 'repo', 'unsafe names do not count towards the top folder');
  assert.deepEqual(
    choice.chosen.map((c) => c.path),
    ['AGENTS.md'],
  );
  assert.deepEqual(choice.notRead, [
    { path: 'repo/../evil.md', reason: 'its name climbs out of the repository (..)' },
    { path: '/etc/passwd.md', reason: 'its name is an absolute path' },
    { path: '\\windows\\evil.md', reason: 'its name starts with a backslash (a Windows root)' },
    { path: 'C:/evil.md', reason: 'its name starts with a drive letter' },
    { path: 'repo/a\\x00b.md', reason: 'its name has a NUL byte' },
    { path: 'repo\\..\\up.md', reason: 'its name climbs out of the repository (..)' },
    { path: 'big.md', reason: TOO_LARGE },
    { path: 'AGENTS.md', reason: 'a second file with this name; the first was read' },
  ]);
});

test('safe names pass: dots inside names and folders are not "..", a colon later in a name is no drive', () => {
  for (const name of ['repo/..hidden.md', 'repo/a..b/c.md', 'repo/.cursor/rules/x.mdc', 'repo/notes: 1.md'])
    assert.equal(unsafeName(name), undefined, name);
});

test('a file is read as UTF-8 text, and not read when it is not text', () => {
  assert.deepEqual(textOf(new TextEncoder().encode('# Rules — ü\n')), { content: '# Rules — ü\n' });
  assert.deepEqual(textOf(new Uint8Array([0x23, 0x20, 0xff, 0xfe, 0x41])), { reason: 'not UTF-8 text' });
  assert.deepEqual(textOf(new Uint8Array([0x41, 0x00, 0x42])), { reason: 'has NUL bytes: not a text file' });
});

test('a folder from the picker: its rule files read, the rest listed or left out', async () => {
  const file = (path: string, body: string | Uint8Array<ArrayBuffer>) => {
    const bytes: Uint8Array<ArrayBuffer> = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    return Object.assign(new File([bytes], path.split('/').pop() ?? path), { webkitRelativePath: path });
  };
  const result = await ruleFilesOfFolder([
    file('ledger/AGENTS.md', '# Small commits\n'),
    file('ledger/.cursor/rules/latin1.mdc', new Uint8Array([0x63, 0x61, 0x66, 0xe9])),
    file('ledger/src/main.ts', 'export {};\n'),
    file('ledger/huge.md', 'x'.repeat(256 * 1024 + 1)),
  ]);
  assert.deepEqual(result, {
    project: 'ledger',
    files: [{ path: 'AGENTS.md', content: '# Small commits\n' }],
    notRead: [
      { path: 'huge.md', reason: TOO_LARGE },
      { path: '.cursor/rules/latin1.mdc', reason: 'not UTF-8 text' },
    ],
  });
});

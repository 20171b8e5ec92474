import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strToU8, type Zippable, zipSync } from 'fflate';
import { TOO_LARGE } from './rule-files.js';
import { ruleFilesOfZip, ruleFilesOfZipBytes } from './rule-zip.js';

const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The offsets of an entry's central directory header and local header in a built zip. */
function headersOf(zip: Uint8Array, name: string): { central: number; local: number } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  for (let at = 0; at + 46 < zip.length; at++) {
    if (view.getUint32(at, true) !== CENTRAL) continue;
    const length = view.getUint16(at + 28, true);
    if (new TextDecoder().decode(zip.subarray(at + 46, at + 46 + length)) !== name) continue;
    const local = view.getUint32(at + 42, true);
    assert.equal(view.getUint32(local, true), LOCAL);
    return { central: at, local };
  }
  throw new Error(`no entry ${name} in the zip`);
}
const view = (zip: Uint8Array) => new DataView(zip.buffer, zip.byteOffset, zip.byteLength);

const repo = (files: Zippable) => zipSync({ 'acme-api-main/': new Uint8Array(), ...files });
const rules = {
  'acme-api-main/AGENTS.md': strToU8('# Small commits\n\nOne change per commit.\n'),
  'acme-api-main/.cursor/rules/sql.mdc': strToU8('---\nglobs: "**/*.sql"\n---\n# Bind parameters\n'),
  'acme-api-main/src/index.ts': strToU8('export {};\n'),
};

test('a repository zip with its top folder (GitHub’s Download ZIP): rules read, project the folder', async () => {
  const zip = repo({
    ...rules,
    'acme-api-main/.clinerules': [strToU8('Stored, not deflated.\n'), { level: 0 }],
    'acme-api-main/node_modules/pkg/README.md': strToU8('# A dependency\n'),
  });
  assert.deepEqual(await ruleFilesOfZipBytes('acme-api-main.zip', zip), {
    project: 'acme-api-main',
    files: [
      { path: 'AGENTS.md', content: '# Small commits\n\nOne change per commit.\n' },
      { path: '.cursor/rules/sql.mdc', content: '---\nglobs: "**/*.sql"\n---\n# Bind parameters\n' },
      { path: '.clinerules', content: 'Stored, not deflated.\n' },
    ],
    notRead: [],
  });
});

test('a zip made inside the repository (no top folder) takes its file name as the project', async () => {
  const zip = zipSync({ 'AGENTS.md': strToU8('# A\n'), 'web/CLAUDE.md': strToU8('# B\n') });
  const result = await ruleFilesOfZipBytes('ledger.ZIP', zip);
  assert.equal(result.project, 'ledger');
  assert.deepEqual(
    result.files.map((f) => f.path),
    ['AGENTS.md', 'web/CLAUDE.md'],
  );
});

test('an empty zip gives no files and no error', async () => {
  assert.deepEqual(await ruleFilesOfZipBytes('empty.zip', zipSync({})), { project: 'empty', files: [], notRead: [] });
});

test('not a zip: refused, saying what to choose instead', async () => {
  const message =
    'This file is not a zip archive: notes.zip. Choose a .zip downloaded from your repository, or a folder.';
  await assert.rejects(ruleFilesOfZipBytes('notes.zip', strToU8('hello')), { message });
  await assert.rejects(ruleFilesOfZipBytes('notes.zip', new Uint8Array()), { message });
  await assert.rejects(ruleFilesOfZipBytes('notes.zip', strToU8('# Not a zip\n'.repeat(10_000))), { message });
  const png = new Uint8Array(5000).fill(7);
  png.set([0x89, 0x50, 0x4e, 0x47]);
  await assert.rejects(ruleFilesOfZipBytes('notes.zip', png), { message });
});

test('a zip whose central directory is broken is refused as damaged', async () => {
  const zip = repo(rules);
  zip[headersOf(zip, 'acme-api-main/AGENTS.md').central] = 0;
  await assert.rejects(ruleFilesOfZipBytes('acme.zip', zip), {
    message: 'This zip archive is damaged: acme.zip. Download it again from your repository, or choose its folder.',
  });
});

test('a zip bomb that really unpacks past 64 MiB is refused before anything is inflated', async () => {
  const zip = repo({ ...rules, 'acme-api-main/zeros.md': new Uint8Array(65 * 1024 * 1024) });
  assert.ok(zip.length < 200_000, `${zip.length} bytes`);
  await assert.rejects(ruleFilesOfZipBytes('bomb.zip', zip), {
    message:
      'This zip would unpack to 66 MiB, more than the 64 MiB the import reads: bomb.zip. ' +
      'Choose the repository’s folder instead, or a zip of only its rule files.',
  });
});

const lying =
  'This zip declares sizes no real archive has (a zip bomb, or a damaged file): bomb.zip. ' +
  'Download the zip again from your repository, or choose its folder.';

test('an entry declaring more than deflate can expand its bytes to is refused as a bomb or damage', async () => {
  const zip = repo(rules);
  const { central } = headersOf(zip, 'acme-api-main/AGENTS.md');
  assert.ok(view(zip).getUint32(central + 20, true) < 100);
  view(zip).setUint32(central + 24, 200 * 1024, true);
  await assert.rejects(ruleFilesOfZipBytes('bomb.zip', zip), { message: lying });
});

test('an entry declaring 3.75 GiB is refused without allocating it', async () => {
  const zip = repo(rules);
  view(zip).setUint32(headersOf(zip, 'acme-api-main/AGENTS.md').central + 24, 0xf0000000, true);
  await assert.rejects(ruleFilesOfZipBytes('bomb.zip', zip), { message: lying });
});

test('a zip over 256 MiB is refused before its bytes are read', async () => {
  const file = {
    name: 'monorepo.zip',
    size: 300 * 1024 * 1024,
    arrayBuffer: () => Promise.reject(new Error('read a zip over the limit')),
  };
  await assert.rejects(ruleFilesOfZip(file), {
    message:
      'This zip is 300 MiB, more than the 256 MiB the import reads: monorepo.zip. ' +
      'Choose the repository’s folder instead.',
  });
});

test('hostile entries are not read and are listed with why; the rest of the zip is read', async () => {
  const zip = repo({
    ...rules,
    'acme-api-main/../../.bashrc.md': strToU8('escape\n'),
    'acme-api-main/a\0b.md': strToU8('nul\n'),
    '/etc/cron.d/evil.md': strToU8('absolute\n'),
    'C:\\Windows\\evil.md': strToU8('drive\n'),
    '\\share\\evil.md': strToU8('backslash root\n'),
    'acme-api-main/secret.md': strToU8('# Encrypted\n'),
    'acme-api-main/bzip2.md': strToU8('# Another method\n'),
    'acme-api-main/latin1.md': new Uint8Array([0x23, 0x20, 0x63, 0x61, 0x66, 0xe9]),
    'acme-api-main/binary.txt': new Uint8Array([0x41, 0, 0, 0x42]),
    'acme-api-main/big.md': strToU8('a long rule. '.repeat(25_000)),
    'acme-api-main/assets/logo.png': new Uint8Array(300 * 1024),
  });
  const secret = headersOf(zip, 'acme-api-main/secret.md');
  for (const at of [secret.central + 8, secret.local + 6])
    view(zip).setUint16(at, view(zip).getUint16(at, true) | 1, true);
  const bzip2 = headersOf(zip, 'acme-api-main/bzip2.md');
  for (const at of [bzip2.central + 10, bzip2.local + 8]) view(zip).setUint16(at, 12, true);

  const result = await ruleFilesOfZipBytes('acme-api-main.zip', zip);
  assert.equal(result.project, 'acme-api-main');
  assert.deepEqual(
    result.files.map((f) => f.path),
    ['AGENTS.md', '.cursor/rules/sql.mdc'],
  );
  assert.deepEqual(result.notRead, [
    { path: 'acme-api-main/../../.bashrc.md', reason: 'its name climbs out of the repository (..)' },
    { path: 'acme-api-main/a\\x00b.md', reason: 'its name has a NUL byte' },
    { path: '/etc/cron.d/evil.md', reason: 'its name is an absolute path' },
    { path: 'C:\\Windows\\evil.md', reason: 'its name starts with a drive letter' },
    { path: '\\share\\evil.md', reason: 'its name starts with a backslash (a Windows root)' },
    { path: 'big.md', reason: TOO_LARGE },
    { path: 'secret.md', reason: 'encrypted (password-protected)' },
    {
      path: 'bzip2.md',
      reason: 'compressed with method 12, which the import does not read (only stored and deflate)',
    },
    { path: 'latin1.md', reason: 'not UTF-8 text' },
    { path: 'binary.txt', reason: 'has NUL bytes: not a text file' },
  ]);
});

test('an entry that inflates past its declared size, or whose bytes changed, is listed as damaged', async () => {
  const zip = repo({
    ...rules,
    'acme-api-main/short.md': strToU8('a'.repeat(200_000)),
    'acme-api-main/stored.md': [strToU8('# Stored rule\n'), { level: 0 }],
  });
  view(zip).setUint32(headersOf(zip, 'acme-api-main/short.md').central + 24, 10, true);
  const stored = headersOf(zip, 'acme-api-main/stored.md').local;
  const dataAt = stored + 30 + view(zip).getUint16(stored + 26, true) + view(zip).getUint16(stored + 28, true);
  assert.equal(zip[dataAt + 2], 0x53, 'the S of Stored');
  zip[dataAt + 2] = 0x73;
  const result = await ruleFilesOfZipBytes('acme-api-main.zip', zip);
  assert.deepEqual(
    result.files.map((f) => f.path),
    ['AGENTS.md', '.cursor/rules/sql.mdc'],
  );
  assert.deepEqual(result.notRead, [
    { path: 'short.md', reason: 'damaged: its content does not match its checksum' },
    { path: 'stored.md', reason: 'damaged: its content does not match its checksum' },
  ]);
});

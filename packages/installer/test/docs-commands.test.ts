// The commands the docs show exist as shown: every `npm run` script in its workspace, every
// `cairn` command and subcommand the server's CLI knows, every installer flag and every `--client` id.
// What needs a running server or a real client is run by the e2e tests; this catches a doc that names
// a command, a script or a flag that is not (or no longer) there.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLIENT_ALIASES, CLIENT_IDS } from '@cairn/clients';
import { INSTALLER_FLAGS } from '../src/cli/parse-args.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function* markdown(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* markdown(path);
    else if (entry.name.endsWith('.md')) yield path;
  }
}

const DOCS = [
  ...['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md'].map((f) => join(ROOT, f)),
  ...markdown(join(ROOT, 'docs')),
  ...markdown(join(ROOT, 'plugins')),
  ...readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'README.md')),
].filter((path) => {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
});

/** The text of every code span and code block of a Markdown file, one command line each. */
export function codeLines(text: string): string[] {
  const blocks = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
  const spans = [...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...blocks, ...spans];
}

const lines = DOCS.flatMap((path) =>
  codeLines(readFileSync(path, 'utf8')).map((line) => ({ where: relative(ROOT, path), line })),
);

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const packages = readdirSync(join(ROOT, 'packages')).flatMap((dir) => {
  try {
    const pkg = readJson(join(ROOT, 'packages', dir, 'package.json'));
    return [{ name: pkg.name as string, scripts: Object.keys(pkg.scripts ?? {}) }];
  } catch {
    return [];
  }
});
const rootScripts = Object.keys(readJson(join(ROOT, 'package.json')).scripts ?? {});

/** The `cairn` commands: the first words of each line of the server CLI's usage text. */
function cairnCommands(): Set<string> {
  const main = readFileSync(join(ROOT, 'packages/server/src/cli/main.ts'), 'utf8');
  const usage = main.match(/const USAGE = `([\s\S]*?)`;/)?.[1] ?? '';
  const commands = [...usage.matchAll(/^ {2}([a-z][a-z-]*(?: [a-z][a-z-]*)?)/gm)].map((m) =>
    m[1]!.replace(/ (?:[A-Z]|--).*$/, ''),
  );
  return new Set(commands);
}

test('the docs are found and hold commands', () => {
  assert.ok(DOCS.length > 15, `docs found: ${DOCS.length}`);
  assert.ok(lines.length > 300, 'code lines are read');
  assert.deepEqual(codeLines('run `npm test`, then\n```sh\nnpm run lint\ncairn serve\n```\n'), [
    'npm run lint',
    'cairn serve',
    '',
    'npm test',
  ]);
});

test('every `npm run` script the docs show exists in its workspace', () => {
  const missing: string[] = [];
  let seen = 0;
  for (const { where, line } of lines)
    for (const m of line.matchAll(/npm run ([a-z][\w:-]*)(?: -w ([@\w/-]+))?/g)) {
      seen++;
      const [, script, workspace] = m;
      const found = workspace
        ? packages.find((p) => p.name === workspace)?.scripts.includes(script!)
        : // Without -w the reader may stand in the root or, as the text around it says, in a package.
          rootScripts.includes(script!) || packages.some((p) => p.scripts.includes(script!));
      if (!found) missing.push(`${where}: npm run ${script}${workspace ? ` -w ${workspace}` : ''}`);
    }
  assert.ok(seen > 20, `npm run lines seen: ${seen}`);
  assert.deepEqual(missing, []);
});

test('every `cairn` command the docs show is one the CLI knows', () => {
  const known = cairnCommands();
  assert.ok(known.has('serve') && known.has('keys create') && known.has('users create'), [...known].join(', '));
  const groups = new Set([...known].map((c) => c.split(' ')[0]!));
  const unknown: string[] = [];
  let seen = 0;
  for (const { where, line } of lines)
    for (const m of line.matchAll(/(?:^|[\s$(&|;])cairn ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
      const [, first, second] = m;
      // `podman exec cairn cairn …`, `cd cairn`: a word that is no command of the CLI is not a call of it.
      if (!groups.has(first!)) continue;
      seen++;
      const sub = [...known].some((c) => c.startsWith(`${first} `));
      if (sub ? !known.has(`${first} ${second}`) : !known.has(first!))
        unknown.push(`${where}: cairn ${first}${sub ? ` ${second ?? ''}` : ''}`);
    }
  assert.ok(seen > 20, `cairn command lines seen: ${seen}`);
  assert.deepEqual(unknown, []);
});

test('every installer flag and client id the docs show is one the installer takes', () => {
  const flags = new Set(Object.keys(INSTALLER_FLAGS));
  const ids = new Set<string>([...CLIENT_IDS, ...Object.keys(CLIENT_ALIASES)]);
  const wrong: string[] = [];
  let seen = 0;
  for (const { where, line } of lines) {
    // The installer's own command: from `npx … cairn-mcp-installer[@v]` or `….tgz` to the end of that command.
    const call = line.match(/\bnpx\b[^|;&]*?cairn-mcp-installer(?:@[\w.]+|\.tgz)?(\s[^|;&]*)?$/m);
    if (!call) continue;
    seen++;
    const args = call[1] ?? '';
    for (const m of args.matchAll(/(?:^|\s)--([a-z][a-z-]*)/g))
      if (!flags.has(m[1]!)) wrong.push(`${where}: --${m[1]} in "${line.trim()}"`);
    for (const m of args.matchAll(/--client[ =]([a-z][a-z0-9-]*)/g))
      if (!ids.has(m[1]!)) wrong.push(`${where}: --client ${m[1]}`);
  }
  assert.ok(seen > 10, `installer lines seen: ${seen}`);
  assert.deepEqual(wrong, []);
});

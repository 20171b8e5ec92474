import { doesNotMatch, equal, match } from 'node:assert/strict';
import { test } from 'node:test';
import { main } from './main.js';
import { tempMachine } from './testing/temp-machine.js';

test('Node older than 20.18.1: names the found and needed versions, exits non-zero', async () => {
  const m = tempMachine();
  const errors: string[] = [];
  equal(await main(['--help'], m, 'v20.18.0', (l) => errors.push(l)), 1);
  match(errors[0]!, /needs Node\.js 20\.18\.1 or newer; this is Node\.js 20\.18\.0/);
  equal(await main(['--help'], m, 'v18.20.4', (l) => errors.push(l)), 1);
  equal(await main(['--version'], m, 'v20.18.1', (l) => errors.push(l)), 0);
  equal(m.lines.at(-1), '1.0.0');
  m.cleanup();
});

test('flags: unknown client and unknown flag exit 2 with a hint', async () => {
  const m = tempMachine();
  equal(await m.install('--client', 'emacs'), 2);
  match(m.errors.at(-1)!, /Unknown client "emacs"/);
  equal(await m.install('--client', 'cursor', '--frobnicate'), 2);
  match(m.errors.at(-1)!, /--help/);
  equal(await m.install('--client', 'cursor', '--oauth', '--api-key', 'cairn_tkn_x'), 2);
  equal(await m.install('--help'), 0);
  match(m.lines.join('\n'), /--setup-code/);
  m.cleanup();
});

test('--help shows the command that runs: the copy a Cairn serves at /install, not a bare package name', async () => {
  const m = tempMachine();
  equal(await m.install('--help'), 0);
  const help = m.lines.join('\n');
  match(help, /^ {2}npx -y <cairn url>\/install\/cairn-mcp-installer\.tgz --client <id> --url <cairn url>/m);
  doesNotMatch(help, /npx cairn-mcp-installer(?!@latest)/, 'npx cairn-mcp-installer alone is not on the npm registry');
  m.cleanup();
});

// What the installer and doctor print: no secret of any entry, and nothing a server sends can drive the terminal.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { configPath } from '@cairn/clients';
import { inHome, type TempMachine } from '../testing/temp-machine.js';

const GITHUB_TOKEN = 'ghp_R8vKq2LmZ7xWc4NbT9yHs3JdF6gPa1Ue5Qio';
const WORK_KEY = 'cairn_tkn_WORKWORKWORKWORKWORKWORKWORKWORKWO9999';
const OLD_KEY = 'cairn_tkn_OLDOLDOLDOLDOLDOLDOLDOLDOLDOLDOLD1111';
const NEW_KEY = 'cairn_tkn_NEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEW2222';
const HOSTILE =
  'bad key\u001b[2J\u001b[H\u001b]8;;https://evil.example/\u0007click here\u001b]8;;\u0007\nConnected as admin — 9 datapacks\u202e';

// A server posing as Cairn: refuses every key, with an error message full of terminal escapes.
const hostile = createServer((req, res) => {
  req.resume();
  const answer = { jsonrpc: '2.0', id: 1, error: { code: -32001, message: HOSTILE } };
  res
    .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' })
    .end(JSON.stringify(answer));
});
before(() => new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve)));
after(() => new Promise((resolve) => hostile.close(resolve)));

const printed = (m: TempMachine) => [...m.lines, ...m.errors].join('\n');

test("the diff, the rotation and the warnings print no neighbour's token, no other entry's key and no replaced key", () =>
  inHome(async (m) => {
    const path = configPath('cursor', m);
    mkdirSync(dirname(path), { recursive: true });
    const neighbours = {
      mcpServers: {
        'cairn-work': {
          url: 'https://work.example/mcp',
          headers: { Authorization: `Bearer ${WORK_KEY}`, 'User-Agent': 'cairn-mcp-installer/1.0' },
        },
        github: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: GITHUB_TOKEN },
        },
      },
    };
    writeFileSync(path, `${JSON.stringify(neighbours, null, 2)}\n`);
    assert.equal(
      await m.install('--client', 'cursor', '--url', 'https://cairn.example.com', '--api-key', OLD_KEY, '--no-check'),
      0,
      printed(m),
    );
    assert.equal(
      await m.install('--client', 'cursor', '--url', 'https://cairn.example.com', '--api-key', NEW_KEY, '--dry-run'),
      0,
      printed(m),
    );
    assert.equal(
      await m.install('--client', 'cursor', '--url', 'https://cairn.example.com', '--api-key', NEW_KEY),
      0,
      printed(m),
    );
    const all = printed(m);
    assert.match(all, /^[-+] /m, 'a diff was shown');
    assert.match(all, /GITHUB_PERSONAL_ACCESS_TOKEN/, 'the neighbour is in the diff, its token not');
    for (const secret of [GITHUB_TOKEN, WORK_KEY, OLD_KEY, NEW_KEY]) {
      assert.ok(!all.includes(secret.slice(4, -4)), `${secret.slice(0, 8)}… is printed:\n${all}`);
    }
    assert.match(
      m.errors.join('\n'),
      /Warning: --api-key puts the key in your shell history.*CAIRN_API_KEY.*hidden prompt/,
    );
  }));

test('a hostile server posing as Cairn cannot put an escape sequence or a line of its own on the terminal: install check and doctor', () =>
  inHome(async (m) => {
    const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    assert.equal(await m.install('--client', 'cursor', '--url', url, '--api-key', NEW_KEY, '--yes'), 3, printed(m));
    assert.match(printed(m), /✘ Check failed.*Cairn says: bad key\\x1b\[2J/);
    const afterInstall = m.lines.length;
    assert.equal(await m.install('doctor', '--client', 'cursor'), 1, printed(m));
    assert.ok(m.lines.length > afterInstall);
    assert.match(
      m.lines.slice(afterInstall).join('\n'),
      /bad key\\x1b\[2J/,
      'doctor names what the server said, escaped',
    );
    const all = printed(m);
    for (const c of ['\u001b', '\u0007', '\u202e'])
      assert.ok(!all.includes(c), `U+${c.codePointAt(0)!.toString(16)} reached the terminal`);
    assert.ok(!all.split('\n').some((l) => l.startsWith('Connected as admin')), "no line of the server's own");
  }));

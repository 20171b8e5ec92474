// Re-running the installer with another --url: the key it replaces goes only to the server it came from.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { configPath } from '@cairn/clients';
import { inHome, type TempMachine } from '../testing/temp-machine.js';

const OLD_KEY = 'cairn_tkn_OLDOLDOLDOLDOLDOLDOLDOLDOLDOLDOLD1111';
const NEW_KEY = 'cairn_tkn_NEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEW2222';

/** A stand-in Cairn: answers the installer's check for any key, revokes `ownKey` once, and records every request. */
function standIn(ownKey: string) {
  const seen: { method: string; path: string; authorization: string }[] = [];
  let revoked = false;
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization ?? '' });
    req.resume();
    if (req.method === 'DELETE' && req.url === '/api/v1/keys/self') {
      const mine = req.headers.authorization === `Bearer ${ownKey}` && !revoked;
      revoked ||= mine;
      res
        .writeHead(mine ? 200 : 401, { 'content-type': 'application/json' })
        .end(mine ? '{"revoked":true}' : '{"error":{"code":"unauthenticated","message":"The API key is not valid."}}');
      return;
    }
    const answer = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: 'Datapacks' }],
        structuredContent: { you: { name: 'Stand-in' }, datapacks: [] },
      },
    };
    res
      .writeHead(200, { 'content-type': 'text/event-stream' })
      .end(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
  });
  return {
    server,
    seen,
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    isRevoked: () => revoked,
  };
}

const oldCairn = standIn(OLD_KEY);
const newCairn = standIn(NEW_KEY);
const listen = (s: Server) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
before(() => Promise.all([listen(oldCairn.server), listen(newCairn.server)]));
after(() => Promise.all([oldCairn.server, newCairn.server].map((s) => new Promise((resolve) => s.close(resolve)))));

const out = (m: TempMachine) => `${m.lines.join('\n')}\n${m.errors.join('\n')}`;

test('a rotation with a new --url never sends the old key there, and retires it at its own server', () =>
  inHome(async (m) => {
    assert.equal(
      await m.install('--client', 'cursor', '--url', oldCairn.url(), '--api-key', OLD_KEY, '--yes', '--no-check'),
      0,
      out(m),
    );
    assert.equal(
      await m.install('--client', 'cursor', '--url', newCairn.url(), '--api-key', NEW_KEY, '--yes'),
      0,
      out(m),
    );
    assert.ok(
      !newCairn.seen.some((r) => r.authorization.includes(OLD_KEY)),
      `the new server never saw the old key: ${JSON.stringify(newCairn.seen)}`,
    );
    assert.deepEqual(
      oldCairn.seen.map((r) => `${r.method} ${r.path} ${r.authorization === `Bearer ${OLD_KEY}`}`),
      ['DELETE /api/v1/keys/self true'],
    );
    assert.ok(oldCairn.isRevoked());
    assert.match(
      out(m),
      new RegExp(
        `Revoked the key it replaced \\(cairn_tkn_…1111\\) at ${new URL(oldCairn.url()).host.replace('.', '\\.')}`,
      ),
    );
    assert.doesNotMatch(out(m), /already revoked/);
    const written = JSON.parse(readFileSync(configPath('cursor', m), 'utf8')).mcpServers.cairn;
    assert.equal(written.url, `${newCairn.url()}/mcp`);
  }));

import { deepStrictEqual, equal, match } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { configPath } from '@cairn/clients';
import { tempMachine } from '../testing/temp-machine.js';

const KEY = 'cairn_tkn_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC777777';

/** A stand-in for Cairn's exchange endpoint: one valid code, used once. */
async function stubCairn() {
  const requests: Array<{ method?: string; url?: string; userAgent?: string; body: unknown }> = [];
  let used = false;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}');
      requests.push({ method: req.method, url: req.url, userAgent: req.headers['user-agent'], body });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/v1/setup-codes/exchange' && body.code === 'GOOD-CODE' && !used) {
        used = true;
        res.end(JSON.stringify({ key: KEY }));
      } else {
        res.statusCode = 400;
        res.end(
          JSON.stringify({
            error: { code: 'invalid_setup_code', message: 'This setup code is unknown, used or expired' },
          }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('--setup-code trades the code for a key, once; a refused code shows the server message', async () => {
  const stub = await stubCairn();
  const m = tempMachine();
  try {
    equal(
      await m.install('--client', 'kiro', '--url', stub.base, '--setup-code', 'GOOD-CODE', '--yes', '--no-check'),
      0,
      m.errors.join('\n'),
    );
    deepStrictEqual(stub.requests[0], {
      method: 'POST',
      url: '/api/v1/setup-codes/exchange',
      userAgent: 'cairn-mcp-installer/1.0',
      body: { code: 'GOOD-CODE', client: 'kiro', host: 'test-host' },
    });
    const entry = JSON.parse(readFileSync(configPath('kiro', m), 'utf8')).mcpServers.cairn;
    equal(entry.headers.Authorization, `Bearer ${KEY}`);
    equal(entry.url, `${stub.base}/mcp`);
    equal(await m.install('--client', 'cursor', '--url', `${stub.base}/mcp`, '--setup-code', 'GOOD-CODE', '--yes'), 1);
    match(m.errors.at(-1)!, /The setup code was not accepted: This setup code is unknown, used or expired/);
    equal(stub.requests[1]!.url, '/api/v1/setup-codes/exchange', 'an /mcp URL is reduced to the base');
  } finally {
    m.cleanup();
    await stub.close();
  }
});

test('--setup-code against an unreachable server says so', async () => {
  const m = tempMachine();
  try {
    equal(await m.install('--client', 'cursor', '--url', 'http://127.0.0.1:9', '--setup-code', 'X', '--yes'), 1);
    match(m.errors.at(-1)!, /Could not reach http:\/\/127\.0\.0\.1:9\/api\/v1\/setup-codes\/exchange/);
  } finally {
    m.cleanup();
  }
});

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Resolver, refusedAddressReason, SafeFetchError, safeFetch } from './safe-fetch.js';

const strict = { allowLoopback: false };

describe('refusedAddressReason', () => {
  for (const address of [
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.9.9.9',
    '169.254.169.254',
    '0.0.0.0',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
  ]) {
    it(`refuses ${address}`, () => assert.ok(refusedAddressReason(address, strict)));
  }
  // Forms the hand-written check once missed: 6to4 and Teredo embedding private IPv4, the
  // uncompressed and hex IPv4-mapped spellings, IPv4-translated, NAT64 (both prefixes), IPv4-compatible.
  for (const address of [
    '2002:a00:1::1',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2002:808:808::1',
    '2001:0:a00:1::',
    '2001::1',
    '0:0:0:0:0:ffff:a00:1',
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:0a00:0001',
    '::FFFF:A9FE:A9FE',
    '::ffff:0:a00:1',
    '::ffff:0:7f00:1',
    '64:ff9b::a00:1',
    '64:ff9b::8.8.8.8',
    '64:ff9b:1::a00:1',
    '::a00:1',
    '::10.0.0.1',
    '::7f00:1',
    '100.64.0.1',
    '192.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    'fec0::1',
    'ff02::1',
    '2001:db8::1',
    '100::1',
    'fe80::1%eth0',
  ]) {
    it(`refuses ${address}`, () => assert.ok(refusedAddressReason(address, strict)));
  }
  it('names why, so a refused client can be told', () => {
    assert.match(refusedAddressReason('2002:a00:1::1', strict)!, /6to4/);
    assert.match(refusedAddressReason('2001:0:a00:1::', strict)!, /Teredo/);
    assert.match(refusedAddressReason('64:ff9b::a00:1', strict)!, /NAT64/);
    assert.match(refusedAddressReason('0:0:0:0:0:ffff:a00:1', strict)!, /private/);
    assert.match(refusedAddressReason('::a00:1', strict)!, /IPv4-compatible/);
    assert.match(refusedAddressReason('not-an-ip', strict)!, /not an IP address/);
  });
  for (const address of [
    '93.184.216.34',
    '172.32.0.1',
    '8.8.8.8',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '0:0:0:0:0:ffff:808:808',
    '2a00:1450:4001:80b::200e',
  ]) {
    it(`accepts ${address}`, () => assert.equal(refusedAddressReason(address, strict), undefined));
  }
  it('the test policy lets loopback through, and nothing else', () => {
    assert.equal(refusedAddressReason('127.0.0.1', { allowLoopback: true }), undefined);
    assert.equal(refusedAddressReason('::1', { allowLoopback: true }), undefined);
    assert.ok(refusedAddressReason('10.0.0.1', { allowLoopback: true }));
    assert.ok(refusedAddressReason('169.254.169.254', { allowLoopback: true }));
    assert.equal(refusedAddressReason('::ffff:127.0.0.1', { allowLoopback: true }), undefined);
    assert.ok(refusedAddressReason('2002:7f00:1::', { allowLoopback: true }), '6to4 wrapping loopback is not loopback');
  });
});

describe('safeFetch', () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/doc') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (req.url === '/to-private') return void res.writeHead(302, { location: 'http://internal.test/doc' }).end();
      if (req.url === '/to-doc') return void res.writeHead(302, { location: `http://public.test:${port}/doc` }).end();
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(100 * 1024));
      if (req.url === '/big-chunked') {
        res.writeHead(200);
        for (let i = 0; i < 100; i++) res.write('x'.repeat(1024));
        return void res.end();
      }
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  // public.test "resolves" to the local server (the loopback allowance stands in for a public address);
  // internal.test to a private one; rebind.test to a public and a private address.
  const resolver: Resolver = async (host) => {
    if (host === 'public.test') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'internal.test') return [{ address: '10.0.0.5', family: 4 }];
    if (host === 'mapped.test') return [{ address: '::ffff:192.168.0.1', family: 6 }];
    if (host === 'mixed.test')
      return [
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ];
    throw new Error('ENOTFOUND');
  };
  const testPolicy = { allowHttp: true, allowLoopback: true };
  const url = (path: string, host = 'public.test') => `http://${host}:${port}${path}`;

  it('fetches through the pinned, vetted address', async () => {
    const r = await safeFetch(url('/doc'), { resolve: resolver, policy: testPolicy });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body.toString()), { ok: true });
  });
  it('follows a redirect whose target passes the checks', async () => {
    const r = await safeFetch(url('/to-doc'), { resolve: resolver, policy: testPolicy });
    assert.equal(r.url, url('/doc'));
  });
  it('refuses http by default', async () => {
    await assert.rejects(safeFetch(url('/doc'), { resolve: resolver, policy: { allowLoopback: true } }), /only https/);
  });
  it('refuses loopback by default', async () => {
    await assert.rejects(safeFetch(url('/doc'), { resolve: resolver, policy: { allowHttp: true } }), /loopback/);
    await assert.rejects(
      safeFetch(`http://127.0.0.1:${port}/doc`, { resolve: resolver, policy: { allowHttp: true } }),
      /loopback/,
    );
  });
  it('refuses private, link-local and IPv4-mapped targets (any one address is enough)', async () => {
    for (const host of ['internal.test', 'mapped.test', 'mixed.test']) {
      await assert.rejects(safeFetch(url('/doc', host), { resolve: resolver, policy: testPolicy }), SafeFetchError);
    }
    await assert.rejects(
      safeFetch('http://[::ffff:127.0.0.1]/doc', { resolve: resolver, policy: { allowHttp: true } }),
      /loopback/,
    );
  });
  it('refuses a redirect to a private address', async () => {
    await assert.rejects(safeFetch(url('/to-private'), { resolve: resolver, policy: testPolicy }), /10\.0\.0\.5/);
  });
  it('refuses more than the allowed number of redirects', async () => {
    await assert.rejects(safeFetch(url('/loop'), { resolve: resolver, policy: testPolicy }), /too many redirects/);
  });
  it('refuses an oversize response, declared or streamed', async () => {
    await assert.rejects(safeFetch(url('/big'), { resolve: resolver, policy: testPolicy }), /larger than/);
    await assert.rejects(safeFetch(url('/big-chunked'), { resolve: resolver, policy: testPolicy }), /larger than/);
  });
  it('times out', async () => {
    await assert.rejects(
      safeFetch(url('/slow'), { resolve: resolver, policy: { ...testPolicy, timeoutMs: 200 } }),
      /timed out/,
    );
  });
});
